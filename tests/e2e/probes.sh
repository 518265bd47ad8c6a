# SPDX-License-Identifier: MIT
#
# tests/e2e/probes.sh - in-process probes (--probe without PATH:), sourced by
# tests/e2e/run.sh and run for each configuration (test name "probes"):
#
#   probes-values  what the probes read equals what tests/progs/probes.c
#                  prints: registers, $argN, nested derefs, strings,
#                  bitfields, an array, $retval, @SYMBOL mid-function
#   probes-fault   a pointer that faults gives 0 and (fault), no crash
#   probes-sweep   a probe on every instruction of straight(), callee()
#                  and add(): output unchanged, each fires once per call
#   probes-dlopen  probes in libplugin.so, loaded later with dlopen
#   probes-sigwait  a thread waits in sigwait() for every signal, the
#                  others block them all: the runtime's question to the
#                  threads never reaches the program (the probe stays an
#                  int3), output and counts unchanged
#   probes-remove  a probe removed while the program runs (the control
#                  page's kp_off bit that utrace_recorder_kprobe_remove
#                  sets, here set by the runtime's test hook
#                  UTRACE_KPROBE_TEST_OFF=KEY:N at the probe's Nth hit):
#                  its records stop, the others' do not, the program's
#                  bytes come back (a site's call, a jmp under 4 threads)
#   probes-sweep-mt  probes every 5+ bytes of plugin_entry and
#                  plugin_helper, installed while threads_dlopen has five
#                  threads, four of them calling both at once: output
#                  unchanged, exact counts, and the int3s became jmps
#                  under the running threads (runtime/kprobe_opt.c);
#                  probes-sweep-mt-all: a probe on every instruction
#                  (int3s, each next to another: none can be a jmp)
#   probes-errors  bad definitions: the kernel's message and column

# probe_run NAME PROG [record args...]: runs PROG untraced and under
# `utrace record ARGS`, compares the outputs; leaves $RES/rep.txt.
probe_run() {
	local name=$1 prog=$2 ust tst
	shift 2
	TEST=$name
	RES=$OUT/$CFG/res/$name
	rm -rf "$RES"
	mkdir -p "$RES"
	if [ ! -x "$BIN/$prog" ]; then
		nok "$CFG $name run" "$BIN/$prog was not built"
		return 1
	fi
	(cd "$RUN" && timeout -k 5 "$TMO" "$BIN/$prog" >"$RES/u.out" 2>"$RES/u.err" </dev/null)
	ust=$?
	(cd "$RUN" && timeout -k 5 "$TMO" "$UTRACE" record "$@" -o "$RES/trace.dat" -- "$BIN/$prog" \
		>"$RES/t.out" 2>"$RES/t.err" </dev/null)
	tst=$?
	t "$([ "$ust" = "$tst" ] && cmp -s "$RES/u.out" "$RES/t.out"; echo $?)" \
		"$CFG $name same status and stdout as untraced" "status $ust/$tst" \
		"$(diff "$RES/u.out" "$RES/t.out" | head -5)" "$(grep -v '^utrace record: [0-9]* records' "$RES/t.err" | head -5)"
	timeout -k 5 "$TMO" "$UTRACE" report -p function -i "$RES/trace.dat" >"$RES/rep.txt" 2>"$RES/rep.err" ||
		timeout -k 5 "$TMO" "$UTRACE" report -i "$RES/trace.dat" >"$RES/rep.txt" 2>"$RES/rep.err"
	return 0
}

# The "NAME=VALUE ..." of each EVENT line of the report, quotes dropped.
probe_vals() { sed -n "s/.* $1: ([^)]*)\(.*\)/\1/p" "$RES/rep.txt" | sed 's/ *\*\/ *$//; s/"//g; s/^ //'; }
# offsets of every instruction of FUNC in the file $2 (within its size);
# gcc's five 1-byte NOPs of the call site are one NOP at run time
probe_offsets() {
	local size
	size=$(nm -S --defined-only "$2" | awk -v f="$1" '$4 == f { print strtonum("0x" $2); exit }')
	objdump -d --no-show-raw-insn "$2" | awk -v f="<$1>:" -v size="${size:-0}" '
		$2 == f { on = 1; base = strtonum("0x" $1); next }
		on && /^$/ { exit }
		on && /^ *[0-9a-f]+:/ { a = $1; sub(":", "", a); o = strtonum("0x" a) - base
			if (o < size && (o == 0 || o >= 5 || $2 != "nop")) print o }'
}

check_probes_values() {
	local want got mid
	# the instruction after straight()'s call: counter is updated there
	mid=$(objdump -d --no-show-raw-insn "$BIN/probes" | awk '
		$2 == "<straight>:" { on = 1; base = strtonum("0x" $1); next }
		on && /^$/ { exit }
		on && after { a = $1; sub(":", "", a); print strtonum("0x" a) - base; exit }
		on && /call.*<callee>/ { after = 1 }')
	probe_run probes-values probes \
		--probe 'p:pv visit len=+8(%di):u32 nlen=+8(+0(%di)):u32 name=+0(+16(%di)):string k=%si:s64 flags=+24(%di):b3@0/32 kind=+24(%di):b4@3/32 arr=+28(%di):s32[4]' \
		--probe 'f:fa add a=$arg1:s32 b=$arg2:s32' \
		--probe 'f:fr add%return ret=$retval:s32' \
		--probe 'r:sr straight ret=$retval:s32 g=@counter:s32' \
		--probe "p:sm straight+$mid g=@counter:s32" \
		--probe 'p:gone callee' --probe '-:gone' || return
	want=$(sed -n 's/^visit //p' "$RES/u.out")
	got=$(probe_vals pv)
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" \
		"$CFG probes-values p: entry: registers, nested derefs, string, bitfields, array" "want: $want" "got: $got"
	want=$(sed -n 's/^add a=\([0-9-]*\) b=\([0-9-]*\) ret=.*/a=\1 b=\2/p' "$RES/u.out")
	got=$(probe_vals fa)
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$CFG probes-values f: \$argN" "want: $want" "got: $got"
	want=$(sed -n 's/^add .* ret=\([0-9-]*\)/ret=\1/p' "$RES/u.out")
	got=$(probe_vals fr)
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$CFG probes-values f:%return \$retval" "want: $want" "got: $got"
	want=$(sed -n 's/^straight x=.* counter=\([0-9-]*\) ret=\([0-9-]*\)/ret=\2 g=\1/p' "$RES/u.out")
	got=$(probe_vals sr)
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$CFG probes-values r: \$retval and @SYMBOL" "want: $want" "got: $got"
	want=$(sed -n 's/^straight x=.* counter=\([0-9-]*\) ret=.*/g=\1/p' "$RES/u.out")
	got=$(probe_vals sm)
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$CFG probes-values mid-function (straight+$mid) @SYMBOL" "want: $want" "got: $got"
	t "$(grep -q ' gone: ' "$RES/rep.txt"; [ $? = 1 ]; echo $?)" "$CFG probes-values -: removes an earlier probe"
	t "$([ "$(grep -cE ' sr: \(main\+0x[0-9a-f]+ <- straight\) ' "$RES/rep.txt")" = 3 ]; echo $?)" \
		"$CFG probes-values r: prints (CALLER <- FUNC)" "$(grep -m1 ' sr: ' "$RES/rep.txt")"
}

check_probes_fault() {
	probe_run probes-fault probes --probe 'p:pf fault_target v=+0(%di):u64 s=+0(%di):string w=+8(+0(%di)):u32' || return
	t "$([ "$(probe_vals pf)" = "v=0 s=(fault) w=0" ]; echo $?)" "$CFG probes-fault faults give 0 and (fault)" \
		"got: $(probe_vals pf)"
}

# sweep NAME SPACED: a probe on every instruction (SPACED=0: each is an
# int3, the next instruction being probed too) or on every instruction at
# least 5 bytes after the last probed one (SPACED=1: each can be a jmp to
# a detour, where the function allows it)
check_probes_sweep() {
	local name=${1:-probes-sweep} spaced=${2:-0} args=() f o n bad calls
	for f in straight callee add; do
		for o in $(probe_offsets "$f" "$BIN/probes" |
			awk -v s="$spaced" 's == 0 || NR == 1 || $1 >= last + 5 { print; last = $1 }'); do
			args+=(--probe "p:sw_${f}_$o $f+$o")
		done
	done
	n=${#args[@]}
	probe_run "$name" probes "${args[@]}" || return
	bad=$(grep -o ' sw_[a-z]*_[0-9]*: ' "$RES/rep.txt" | sort | uniq -c |
		awk '$1 != 3 { print $2 " fired " $1 " times" }')
	calls=$(grep -o ' sw_[a-z]*_[0-9]*: ' "$RES/rep.txt" | sort -u | wc -l)
	t "$([ -z "$bad" ] && [ "$calls" = $((n / 2)) ]; echo $?)" \
		"$CFG $name a probe on each of $((n / 2)) instructions fires once per call" \
		"$bad" "$calls of $((n / 2)) probes fired" "$(grep -v 'records' "$RES/t.err" | head -3)"
}

# The spaced sweep of check_probes_sweep on libplugin.so, in a process
# that has its threads when the library comes (threads_dlopen.c):
# UTRACE_KPROBE_DEBUG=1 makes the runtime say how many int3s became jmps
# while the threads ran, and how many it had to keep.
check_probes_sweep_mt() {
	local name=${1:-probes-sweep-mt} spaced=${2:-1} f o args=() n bad rounds threads want_e line jmps kept
	for f in plugin_entry plugin_helper; do
		for o in $(probe_offsets "$f" "$BIN/libplugin.so" |
			awk -v s="$spaced" 's == 0 || NR == 1 || $1 >= last + 5 { print; last = $1 }'); do
			args+=(--probe "p:mt_${f}_$o $f+$o")
		done
	done
	n=$((${#args[@]} / 2))
	UTRACE_KPROBE_DEBUG=1 probe_run "$name" threads_dlopen "${args[@]}" || return
	rounds=$(sed -n 's/^#define ROUNDS \([0-9]*\)/\1/p' "$PROGS/threads_dlopen.c")
	threads=$(grep -c '^thread [0-9]*:' "$RES/u.out")
	want_e=$((rounds * threads))
	bad=$(grep -o ' mt_[a-z_]*_[0-9]*: ' "$RES/rep.txt" | sort | uniq -c | awk -v e="$want_e" '
		{ w = $2 ~ /^mt_plugin_entry_/ ? e : 2 * e; if ($1 != w) print $2 " fired " $1 " times, not " w }')
	[ "$(grep -o ' mt_[a-z_]*_[0-9]*: ' "$RES/rep.txt" | sort -u | wc -l)" = "$n" ] ||
		bad="$bad; $(grep -o ' mt_[a-z_]*_[0-9]*: ' "$RES/rep.txt" | sort -u | wc -l) of $n probes fired"
	t "$([ -z "$bad" ] && [ "$want_e" -gt 0 ]; echo $?)" \
		"$CFG $name $n probes, $threads threads: each fires once per call" "$bad"
	[ "$spaced" = 1 ] || return
	line=$(grep 'kprobes: [0-9]* jump-optimised with threads running' "$RES/t.err" | tail -1)
	jmps=$(echo "$line" | sed -n 's/.*kprobes: \([0-9]*\) jump-optimised.*/\1/p')
	kept=$(echo "$line" | sed -n 's/.*, \([0-9]*\) kept as int3.*/\1/p')
	t "$([ "${jmps:-0}" -gt 0 ] && [ "$kept" = 0 ]; echo $?)" \
		"$CFG probes-sweep-mt int3s became jmps while the threads ran" "runtime: ${line:-no notice}"
}

check_probes_sigwait() {
	local rounds got
	rounds=$(sed -n 's/^#define ROUNDS \([0-9]*\)/\1/p' "$PROGS/sigwait_dlopen.c")
	UTRACE_KPROBE_DEBUG=1 probe_run probes-sigwait sigwait_dlopen \
		--probe "p:sw plugin_helper+$(probe_offsets plugin_helper "$BIN/libplugin.so" | awk '$1 >= 5 { print; exit }')" || return
	got=$(grep -c ' sw: ' "$RES/rep.txt")
	t "$([ "$got" = $((2 * rounds)) ] && grep -q '^sigwait got 10$' "$RES/t.out"; echo $?)" \
		"$CFG probes-sigwait the program's sigwait gets only its SIGUSR1; $((2 * rounds)) hits" \
		"hits: $got" "$(grep sigwait "$RES/t.out")" "$(grep 'utrace\[' "$RES/t.err" | head -2)"
}

# remove_run NAME KEY N WANT...: record threads_dlopen with a jmp probe
# (key 0) and an entry probe (key 1) in libplugin.so, KEY turned off at
# its Nth hit; WANT: "EVENT=COUNT" (exact) or "EVENT~COUNT" (N to N+3:
# threads that passed the check while the Nth hit turned it off)
remove_run() {
	local name=$1 key=$2 hits=$3 rounds=20000 w e c got bad= mid
	shift 3
	mid=$(probe_offsets plugin_helper "$BIN/libplugin.so" | awk '$1 >= 5 { print; exit }')
	THREADS_DLOPEN_ROUNDS=$rounds UTRACE_KPROBE_DEBUG=1 UTRACE_KPROBE_TEST_OFF=$key:$hits \
		probe_run "$name" threads_dlopen --probe "p:rj plugin_helper+$mid" --probe 'f:re plugin_entry' || return
	for w in "$@"; do
		e=${w%%[=~]*}
		c=${w#*[=~]}
		c=$((c * rounds))
		[ "$c" = 0 ] && c=$hits
		got=$(grep -c " $e: " "$RES/rep.txt")
		case $w in
		*=*) [ "$got" = "$c" ] || bad="$bad $e:$got (want $c)" ;;
		*) [ "$got" -ge "$c" ] && [ "$got" -le $((c + 3)) ] || bad="$bad $e:$got (want $c..$((c + 3)))" ;;
		esac
	done
	t "$([ -z "$bad" ]; echo $?)" "$CFG $name probe key $key off at its hit $hits: its records stop there" "$bad"
	got=$(grep -h 'kprobes: [0-9]* probe locations removed' "$RES/t.err" | head -1)
	t "$([[ $got == *"kprobes: 1 probe locations removed (0 not restored), their slots free"* ]]; echo $?)" \
		"$CFG $name the program's bytes are back, no thread left in the slot" "runtime: ${got:-no notice}"
}

check_probes_remove() {
	# rounds of 4 threads: re fires 4 per round, rj (plugin_helper) 8; =0 / ~0: the N hits
	remove_run probes-remove-jmp 0 3000 rj~0 re=4
	remove_run probes-remove-site 1 3000 rj=8 re~0
}

check_probes_dlopen() {
	local want got mid
	# the second instruction: after the call site, an int3
	mid=$(probe_offsets plugin_helper "$BIN/libplugin.so" | awk '$1 >= 5 { print; exit }')
	probe_run probes-dlopen dlopen --probe 'p:ph plugin_helper x=%di:s32' \
		--probe 'r:pe plugin_entry ret=$retval:s32' --probe "p:pm plugin_helper+$mid" || return
	got=$(probe_vals pe | tr '\n' ' ')$(probe_vals ph | tr '\n' ' ')
	want=$(sed -n 's/^round .*(\([0-9]*\)) = \([0-9]*\),.*/ret=\2 /p' "$RES/u.out" | tr -d '\n')
	want=$want$(sed -n 's/^round .*(\([0-9]*\)) = .*/x=\1 x=\1/p' "$RES/u.out" |
		awk '{ split($2, b, "="); printf "%s x=%d ", $1, b[2] + 1 }')
	t "$([ "$want" = "$got" ] && [ "$(grep -c ' pm: ' "$RES/rep.txt")" = 4 ]; echo $?)" \
		"$CFG probes-dlopen probes in a library dlopen'ed later (twice)" "want: $want" "got: $got" "$(grep -E ' (ph|pe|pm): ' "$RES/rep.txt" | head -8)" "$(head -3 "$RES/t.err")"
}

# threads.c: 4 threads each call leaf() ROUNDS times; probes at its entry,
# in its middle and on its return fire that often, from every thread
check_probes_threads() {
	local rounds threads want bad=
	rounds=$(sed -n 's/^#define ROUNDS \([0-9]*\)/\1/p' "$PROGS/threads.c")
	probe_run probes-threads threads --probe 'f:le leaf x=$arg1:s64' --probe 'r:lr leaf r=$retval:s64' \
		--probe "p:lm leaf+$(probe_offsets leaf "$BIN/threads" | awk '$1 >= 5 { print; exit }') x=%di:s64" || return
	threads=$(grep -c '^thread [0-9]*:' "$RES/u.out")
	want=$((rounds * threads))
	for e in le lr lm; do
		[ "$(grep -c " $e: " "$RES/rep.txt")" = "$want" ] || bad="$bad $e:$(grep -c " $e: " "$RES/rep.txt")"
	done
	t "$([ -z "$bad" ] && [ "$want" -gt 0 ]; echo $?)" "$CFG probes-threads entry, mid and return probes from $threads threads ($want hits each)" "got:$bad"
}

# C++ exceptions thrown through functions whose return a probe hooked:
# the unwinder gets the real return addresses back, the program runs as
# untraced; a return that is not unwound still fires
check_probes_exception() {
	probe_run probes-exception exception --probe 'r:r5 _Z6level5i' --probe 'f:l5 _Z6level5i' \
		--probe 'r:rh _Z6handleRK5Error r=$retval:s32' || return
	t "$([ "$(grep -c ' l5: ' "$RES/rep.txt")" -gt 0 ] && [ "$(grep -c ' rh: ' "$RES/rep.txt")" -gt 0 ] &&
		[ "$(grep -c ' r5: ' "$RES/rep.txt")" = 0 ]; echo $?)" \
		"$CFG probes-exception entries fire, returns unwound by the exception do not" \
		"$(grep -E ' (l5|r5|rh): ' "$RES/rep.txt" | head -5)"
}

# a probe event is an event: -f filters it, -R aggregates it, list -e shows it
check_probes_events() {
	local got
	probe_run probes-filter probes --probe 'f:fa add a=$arg1:s32 b=$arg2:s32' -e probes:fa -f 'a >= 1' || return
	got=$(probe_vals fa | tr '\n' ' ')
	t "$([ "$got" = "a=1 b=40 a=2 b=40 " ]; echo $?)" "$CFG probes-filter -f on a probe event" "got: $got"
	probe_run probes-hist probes --probe 'f:fa add a=$arg1:s32 b=$arg2:s32' -v -e probes:fa \
		-R 'hist:keys=a:vals=b' || return
	"$UTRACE" report --hist -i "$RES/trace.dat" >"$RES/hist.txt" 2>&1
	got=$(awk '/^\{ a: / { print $3 ":" $6 ":" $8 }' "$RES/hist.txt" | sort | tr '\n' ' ')
	got=$got$(awk '/Hits:/ { print $2 }' "$RES/hist.txt")
	t "$(grep -q 'fa:' "$RES/rep.txt"; [ $? = 1 ] && [ "$got" = "0:1:40 1:1:40 2:1:40 3" ]; echo $?)" \
		"$CFG probes-hist a hist trigger on a probe event (soft-enabled: no record)" "got: $got"
	# the function tracer on a probed function still names its real caller
	probe_run probes-function probes -p function --probe 'r:ra add r=$retval:s32' || return
	t "$([ "$(grep -cE ': add <-main$' "$RES/rep.txt")" = 3 ] &&
		[ "$(grep -cE ' ra: \(main\+0x[0-9a-f]+ <- add\) r=4[012]$' "$RES/rep.txt")" = 3 ]; echo $?)" \
		"$CFG probes-function -p function with a return probe: add <-main, (main+off <- add)" \
		"$(grep -E 'add|ra:' "$RES/rep.txt" | head -4)"
	got=$("$UTRACE" list -e "$BIN/probes" -F --probe 'p:pv visit n=+8(%di):u32 s=+0(+16(%di)):string' 2>&1)
	t "$([[ $got == *"field:unsigned long __probe_ip;	offset:8;	size:8;	signed:0;"* &&
		$got == *"field:__data_loc char[] s;	offset:20;	size:4;	signed:1;"* &&
		$got == *'print fmt: "(visit+0x0/0x'*') n=%u s=\"%s\"", REC->n, __get_str(s)'* ]]; echo $?)" \
		"$CFG probes list -e -F --probe: the kernel's kprobe format" "$got"
}

check_probes_errors() {
	local d=$OUT/$CFG/res/probes-errors def want out st
	mkdir -p "$d"
	while IFS='|' read -r def want; do
		out=$("$UTRACE" record -o "$d/x.dat" --probe "$def" -- "$BIN/probes" 2>&1 >/dev/null)
		st=$?
		t "$([ $st != 0 ] && [[ $out == *"$want"* ]]; echo $?)" "$CFG probes-errors '$def'" "status $st: $out" "want: $want"
	done <<'EOF'
p:e visit+4 $arg1|$arg* can be used only on function entry or exit at column 13
p:e visit %xx|Invalid register name at column 11
r:e add $stack:string|String accepts only memory argument at column 16
p:e add +8(%di|Dereference brace is not closed at column 15
x:e add|Probe type must be 'p' or 'r' at column 1
EOF
}

# Source names in-process (lib/probes/dwarf.h): the walk() probe of
# tests/kernel/dwarf_probes.sh, here without the kernel; dwarfargs prints
# what each name holds.  At -O0 the probe moves past walk's prologue (a
# mid-function probe), at -O2 it stays on the entry.
check_probes_dwarf() {
	local want got
	probe_run probes-dwarf dwarfargs -p nop --probe 'p:walk walk count p->next->len buf:string p->arr[2] p->flag p->mode p->name:string nn=p->next->name:string counter' || return
	want=$(sed -n 's/^count=\([0-9]*\) len=[0-9]* next_len=\([0-9]*\) arr2=\([0-9]*\) flag=\([0-9]*\) mode=\([0-9]*\) name=\([a-z]*\) next_name=\([a-z]*\) counter=\([0-9]*\)$/count=\1 len=\2 buf_string=hello arr=\3 flag=\4 mode=\5 name=\6 nn=\7 counter=\8/p' "$RES/u.out")
	got=$(probe_vals walk)
	t "$([ -n "$want" ] && [ "$got" = "$want" ]; echo $?)" \
		"$CFG probes-dwarf values by DWARF names are the ones the program printed" \
		"want: $want" "got: $got" "$(head -3 "$RES/t.err")"
}

check_probes_all() {
	check_probes_values
	check_probes_fault
	check_probes_sweep
	check_probes_sweep probes-sweep-jmp 1
	check_probes_dlopen
	check_probes_sweep_mt
	check_probes_sweep_mt probes-sweep-mt-all 0
	check_probes_remove
	check_probes_sigwait
	check_probes_threads
	check_probes_exception
	check_probes_events
	check_probes_dwarf
	[ "$CFG" = "$GOLDEN_CFG" ] && check_probes_errors
}
