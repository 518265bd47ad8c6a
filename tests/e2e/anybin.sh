# SPDX-License-Identifier: MIT
#
# tests/e2e/anybin.sh - programs built WITHOUT utrace cflags, traced by
# patching their function entries (lib/probes/func_patch.c,
# runtime/func_patch.c); sourced by tests/e2e/run.sh (test name "anybin"):
#
#   anybin-PROG   (each *-patch configuration) tests/progs/PROG.c built
#                 with the configuration's compiler and -O but no flags:
#                 same exit status, stdout and stderr as untraced, the
#                 graph balanced, and the same functions, calls and
#                 nesting as the flags' build gives (what `utrace list -f
#                 --why` leaves out excepted)
#   anybin-flt-*  (each *-patch configuration where simple has nothing
#                 left out, i.e. -O0) the filters on simple built without
#                 flags: -l, -n, -g, --max-graph-depth, -p function select
#                 the same calls as on the flags' build
#   anybin-short  (each *-patch configuration) tests/e2e/anybin/short.c:
#                 1-4 byte functions (asm, naked) and a loop to entry + 2
#                 patched with int3, a loop to the entry refused; same
#                 output, graph balanced and golden
#   anybin-why    (once) tests/e2e/anybin/refuse.c: each refused or int3
#                 function named with its reason, the others listed as
#                 patched, the traced run right
#   anybin-sigtrap (once) tests/e2e/anybin/sigtrap.c: the program's own
#                 SIGTRAP handler (installed after ours, on its
#                 sigaltstack), SIGTRAP blocked and ignored, errno
#   anybin-dlopen (once) tests/e2e/anybin/dlthreads.c: a library without
#                 flags dlopen()ed while 4 threads run, called from all
#   anybin-gotcall (once) gotcall.c: --libcall into patched entries, once
#   anybin-bt     (once) tests/e2e/anybin/bt.c: backtrace() from a callee
#                 that returns into a detour slot sees every frame
#   anybin-dist   (once) distribution binaries: sort, gzip -c, bash -c,
#                 python3 -c with a loop, gdb -batch: same output and status, the
#                 graph balanced (functions that call exit() stay open);
#                 -l '*:mod:libc.so*' leaves libc alone and says so

ANYBIN_PROGS="simple fib longjmp exception tailcall threads signal errno"

# anybin_run NAME [record args --] CMD...: untraced and traced runs of CMD
# in $RES (u.*, t.*), the report and its facts; the status check.
anybin_run() {
	local name=$1 ust tst
	shift
	TEST=$name
	RES=$OUT/$CFG/res/$name
	REP=$RES/rep.txt
	FACTS=$RES/facts
	rm -rf "$RES"
	mkdir -p "$RES"
	(cd "$RUN" && timeout -k 5 "$TMO" "$@" >"$RES/u.out" 2>"$RES/u.err" </dev/null)
	ust=$?
	# shellcheck disable=SC2086 # a word list on purpose
	(cd "$RUN" && timeout -k 5 "$TMO" "$UTRACE" record ${ANYBIN_ROPTS:-} -o "$RES/trace.dat" -- "$@" \
		>"$RES/t.out" 2>"$RES/t.err" </dev/null)
	tst=$?
	# without the recorder's lines (the runtime's go through the recorder)
	grep -v -e '^utrace record:' "$RES/t.err" >"$RES/t.err.prog"
	t "$([ "$ust" = "$tst" ] && cmp -s "$RES/u.out" "$RES/t.out" &&
		cmp -s "$RES/u.err" "$RES/t.err.prog"; echo $?)" \
		"$CFG $name same status, stdout and stderr as untraced" "status $ust/$tst" \
		"$(diff "$RES/u.out" "$RES/t.out" | head -5)" "$(head -5 "$RES/t.err")"
	timeout -k 5 "$TMO" "$UTRACE" report -O funcgraph-proc -i "$RES/trace.dat" 2>"$RES/rep.err" |
		head -c $MAXREP >"$REP"
	awk -f "$E2E/graph.awk" "$REP" >"$FACTS"
}

# "NAME count C mind D maxd D" of every function in a facts file, sorted,
# without those of the file $2 (one name a line); $3 = nocount: without
# the count (a program whose loops run for a time, not a number of times)
anybin_funcs() {
	awk -v skipf="$2" -v nocount="${3:-}" '
		BEGIN { while ((getline l < skipf) > 0) skip[l] = 1 }
		$1 == "func" && !($2 in skip) { if (nocount) $4 = "-"; print $2, $3, $4, $5, $6, $7, $8 }' "$1" | sort
}

check_anybin_prog() {
	local p=$1 cc opt bare=$OUT/$CFG/bare nocount src
	cc=$(config_cc "$CFG")
	opt=$(config_opt "$CFG")
	mkdir -p "$bare"
	case $p in
	exception) cc=$(config_cxx "$CFG") src=$PROGS/$p.cc ;;
	*) src=$PROGS/$p.c ;;
	esac
	if ! $cc -g $opt -I"$ROOT/include" -I"$PROGS" -o "$bare/$p" "$src" -pthread -ldl \
		>"$bare/$p.log" 2>&1; then
		nok "$CFG anybin-$p builds without flags" "$(head -5 "$bare/$p.log")"
		return
	fi
	# the refused ones: an int3 one is traced, and compared
	"$UTRACE" list -f "$bare/$p" --why 2>/dev/null | grep -v '	int3: ' | cut -f1 |
		sed "s/(.*//" >"$bare/$p.why"
	anybin_run "anybin-$p-cflags" "$BIN/$p"
	cp "$FACTS" "$bare/$p.cflags.facts"
	# the cflags build has no library calls to compare with
	ANYBIN_ROPTS=--no-libcall anybin_run "anybin-$p" "$bare/$p"
	t "$(grep -q "has no call sites: [0-9]* of [0-9]* functions patched" "$RES/t.err"; echo $?)" \
		"$CFG anybin-$p the recorder says how many entries it patched" "$(head -3 "$RES/t.err")"
	expect_balanced "$CFG anybin-$p graph balanced"
	case $p in signal) nocount=1 ;; *) nocount="" ;; esac
	anybin_funcs "$bare/$p.cflags.facts" "$bare/$p.why" $nocount >"$RES/want"
	anybin_funcs "$FACTS" "$bare/$p.why" $nocount >"$RES/got"
	t "$([ -s "$RES/want" ] && cmp -s "$RES/want" "$RES/got"; echo $?)" \
		"$CFG anybin-$p same calls and nesting as the cflags build" \
		"$(diff "$RES/want" "$RES/got" | head -8)"
}

check_anybin_why() {
	local d=$OUT/anybin want
	mkdir -p "$d"
	CFG=anybin RUN=$d
	if ! gcc -O2 -o "$d/refuse" "$E2E/anybin/refuse.c" >"$d/cc.log" 2>&1; then
		nok "anybin-why builds" "$(head -5 "$d/cc.log")"
		return
	fi
	"$UTRACE" list -f "$d/refuse" --why >"$d/why.txt" 2>"$d/why.err"
	want=$(printf '%s\t%s\n' tiny "int3: shorter than the 5 bytes of a jmp" \
		loop_head "int3: a branch lands inside its first 5 bytes" \
		second "int3: a branch lands inside its first 5 bytes" \
		spin_entry "a branch lands inside its first 5 bytes")
	# the C start-up files may add functions of their own: only ours
	t "$([ "$(grep -E '^(tiny|loop_head|second|spin_entry|jumper|main|plain)	' "$d/why.txt" | sort)" = \
		"$(echo "$want" | sort)" ]; echo $?)" \
		"anybin-why list -f --why names each refused or int3 function and its reason" \
		"$(cat "$d/why.txt" "$d/why.err")"
	"$UTRACE" list -f --why "$d/refuse" >"$d/why2.txt" 2>&1
	t "$(grep -v '^utrace list: ' "$d/why2.txt" | cmp -s - "$d/why.txt"; echo $?)" \
		"anybin-why the issue's spelling, list -f --why PROG, lists the same" \
		"$(head -3 "$d/why2.txt")"
	"$UTRACE" list -f "$d/refuse" >"$d/list.txt" 2>&1
	t "$([ "$(grep -xE 'tiny|loop_head|second|spin_entry|jumper|main|plain' "$d/list.txt" | sort | tr '\n' ' ')" = \
		"jumper loop_head main plain second tiny " ]; echo $?)" \
		"anybin-why list -f lists the patched ones, int3 ones included" "$(cat "$d/list.txt")"
	anybin_run anybin-why "$d/refuse"
	expect_balanced "anybin-why graph balanced"
	t "$(grep -qE "[0-9]+ of [0-9]+ functions patched at their entry \(3 with int3, where a jmp is not safe\); 1 left out .*: 1 a branch lands" \
		"$RES/t.err"; echo $?)" \
		"anybin-why the recorder counts patched, int3 and left-out functions, with reasons" \
		"$(head -3 "$RES/t.err")"
	expect_func "anybin-why patched functions traced" plain count 1
	expect_func "anybin-why tail-called function traced" jumper count 1
	expect_func "anybin-why int3 entry (3 bytes) traced" tiny count 1 depth 2
	expect_func "anybin-why int3 entry (loop to byte 2) traced once" loop_head count 1
	t "$(if has_func spin_entry; then echo 1; else echo 0; fi)" \
		"anybin-why refused entry not traced" "spin_entry: $(fv spin_entry count) calls"
	check_anybin_sigtrap "$d"
	check_anybin_dlopen "$d"
	# backtrace() through a slot: the same frames as untraced
	if gcc -O2 -o "$d/bt" "$E2E/anybin/bt.c" >"$d/cc.log" 2>&1; then
		anybin_run anybin-bt "$d/bt"
	else
		nok "anybin-bt builds" "$(head -5 "$d/cc.log")"
	fi
}

check_anybin_dist() {
	local d=$OUT/anybin py
	mkdir -p "$d"
	CFG=anybin RUN=$d
	seq 5000 | awk '{ print ($1 * 7919) % 5003 }' >"$d/in.txt"
	py=$(command -v python3)
	[ -x /usr/bin/python3 ] && py=/usr/bin/python3
	anybin_run anybin-sort sort -n "$d/in.txt"
	expect_balanced "anybin-sort graph balanced" open-ok
	anybin_run anybin-gzip gzip -c "$d/in.txt"
	expect_balanced "anybin-gzip graph balanced" open-ok
	anybin_run anybin-bash bash -c 'echo hi; for i in 1 2 3; do echo $i; done'
	expect_balanced "anybin-bash graph balanced" open-ok
	# libc is what the runtime itself runs on: not patched, and said so
	ANYBIN_ROPTS="-l *:mod:libc.so* -l *:mod:libz.so*" anybin_run anybin-libc \
		bash -c 'ls / | wc -l'
	t "$(grep -q "libc.so.6 has no call sites, and utrace's runtime itself runs on it" "$RES/t.err"; echo $?)" \
		"anybin-libc -l *:mod:libc.so*: libc left alone, and said" "$(head -3 "$RES/t.err")"
	if [ -n "$py" ]; then
		anybin_run anybin-python "$py" -c 's = 0
for i in range(3000):
    s += i * i
print(s)'
		expect_balanced "anybin-python graph balanced" open-ok
	else
		echo "ok - anybin-python # SKIP no python3"
	fi
	# C++ with exceptions, hundreds of int3 entries
	if command -v gdb >/dev/null; then
		anybin_run anybin-gdb gdb -nx -batch -ex 'print 6*7'
		expect_balanced "anybin-gdb graph balanced" open-ok
		t "$(grep -qE "gdb has no call sites: [0-9]+ of [0-9]+ functions patched at their entry \([1-9][0-9]* with int3" \
			"$RES/t.err"; echo $?)" "anybin-gdb entries patched, some with int3" "$(head -3 "$RES/t.err")"
	else
		echo "ok - anybin-gdb # SKIP no gdb"
	fi
}

# The filters on the bare simple: the same report lines as the flags'
# build gives with the same options (durations and tids masked).
check_anybin_filters() {
	local name opts bare=$OUT/$CFG/bare
	local -a cases=("l -l b*" "n -n a" "g -g a" "depth --max-graph-depth 2" "function -p function"
		"function-l -p function -l c")
	[ -x "$bare/simple" ] || return
	if [ -s "$bare/simple.why" ]; then # -O2: b() and c() are 4 bytes
		echo "ok - $CFG anybin-flt # SKIP simple has functions left out: $(tr '\n' ' ' <"$bare/simple.why")"
		return
	fi
	for entry in "${cases[@]}"; do
		name=${entry%% *}
		opts=${entry#* }
		ANYBIN_ROPTS=$opts anybin_run "anybin-flt-$name-cflags" "$BIN/simple"
		anybin_mask "$REP" >"$bare/flt-$name.want"
		ANYBIN_ROPTS="$opts --no-libcall" anybin_run "anybin-flt-$name" "$bare/simple"
		anybin_mask "$REP" >"$RES/got"
		t "$([ -s "$RES/got" ] && cmp -s "$bare/flt-$name.want" "$RES/got"; echo $?)" \
			"$CFG anybin-flt-$name $opts: the same calls as the flags' build" \
			"$(diff "$bare/flt-$name.want" "$RES/got" | head -8)"
	done
}

# A report's function lines without what changes from run to run.
anybin_mask() {
	grep -E '[a-z_]+\(\)|<-' "$1" | sed -E 's/^.*\|  //; s/^ *[^ ]+-[0-9]+ +\[[0-9]+\] +[^ ]+ +[0-9.]+: +//; s/[0-9]+\.[0-9]+ us//g'
}

# tests/e2e/anybin/short.c with this configuration's compiler and -O, no
# flags: its 1-4 byte functions and loop-to-byte-2 one take int3, the one
# whose loop goes back to its entry none; same output, every call in the
# graph (golden anybin-short, the same for every configuration).
check_anybin_short() {
	local bare=$OUT/$CFG/bare cc opt got
	cc=$(config_cc "$CFG")
	opt=$(config_opt "$CFG")
	mkdir -p "$bare"
	if ! $cc $opt -o "$bare/short" "$E2E/anybin/short.c" >"$bare/short.log" 2>&1; then
		nok "$CFG anybin-short builds without flags" "$(head -5 "$bare/short.log")"
		return
	fi
	"$UTRACE" list -f "$bare/short" --why >"$bare/short.why" 2>&1
	got=$(grep -E '^(nothing|zero|ident|count_to|spin_entry|work|main)	' "$bare/short.why" |
		sed 's/	int3: .*/ int3/; s/	[a-z].*/ refused/' | sort | tr '\n' ' ')
	t "$([ "$got" = "count_to int3 ident int3 nothing int3 spin_entry refused zero int3 " ]; echo $?)" \
		"$CFG anybin-short list -f --why: int3 for the short ones, refused for a loop to the entry" \
		"$(cat "$bare/short.why")"
	ANYBIN_ROPTS=--no-libcall anybin_run anybin-short "$bare/short"
	t "$(grep -q "(4 with int3, where a jmp is not safe); 1 left out" "$RES/t.err"; echo $?)" \
		"$CFG anybin-short the recorder counts the int3 entries" "$(head -3 "$RES/t.err")"
	expect_balanced "$CFG anybin-short graph balanced"
	expect_func "$CFG anybin-short 1-byte ret traced" nothing count 3 depth 2
	expect_func "$CFG anybin-short naked 3-byte traced" zero count 3 depth 2
	expect_func "$CFG anybin-short loop to byte 2 traced once" count_to count 1
	# the graph without CPU, task and durations: names, nesting, braces
	grep -v '^#' "$REP" | sed -E 's/^[^|]*\|[^|]*\|  //' >"$RES/masked.txt"
	check_golden_raw anybin-short "$RES/masked.txt"
}

# tests/e2e/anybin/sigtrap.c: the program's SIGTRAP handler, installed
# after the runtime's, its sigaltstack, its masks and errno, untouched by
# the int3 entries (runtime/trap_guard.c).
check_anybin_sigtrap() {
	local d=$1
	if ! gcc -O2 -o "$d/sigtrap" "$E2E/anybin/sigtrap.c" -pthread >"$d/cc.log" 2>&1; then
		nok "anybin-sigtrap builds" "$(head -5 "$d/cc.log")"
		return
	fi
	ANYBIN_ROPTS=--no-libcall anybin_run anybin-sigtrap "$d/sigtrap"
	t "$(grep -q "2 with int3" "$RES/t.err" &&
		grep -qx "handler: 2 traps, 1 from int3, 0 off its stack, sum 4" "$RES/t.out"; echo $?)" \
		"anybin-sigtrap the program gets its own SIGTRAPs only, on its sigaltstack" \
		"$(cat "$RES/t.out" "$RES/t.err" | head -8)"
	expect_func "anybin-sigtrap int3 entries traced with SIGTRAP blocked and ignored" nothing count 15
}

# tests/e2e/anybin/dlthreads.c: a library without flags dlopen()ed and
# selected while four threads run (and one its constructor started runs
# inside it), its entries int3 first and their jmps
# written once no thread is in the way (UTRACE_KPROBE_DEBUG=1 says so);
# gotcall.c: --libcall with that library linked and selected, a call
# through the GOT into a patched entry recorded once.
check_anybin_dlopen() {
	local d=$1 lib
	lib=$d/libdlt.so
	if ! { gcc -O2 -fPIC -shared -o "$lib" "$E2E/anybin/dlthreads_lib.c" &&
		gcc -O2 -o "$d/dlthreads" "$E2E/anybin/dlthreads.c" -pthread -ldl &&
		gcc -O2 -o "$d/gotcall" "$E2E/anybin/gotcall.c" -L"$d" -ldlt -Wl,-rpath,"$d"; } \
		>"$d/cc.log" 2>&1; then
		nok "anybin-dlopen builds" "$(head -5 "$d/cc.log")"
		return
	fi
	UTRACE_KPROBE_DEBUG=1 ANYBIN_ROPTS="-l *:mod:libdlt.so" \
		anybin_run anybin-dlopen "$d/dlthreads" "$lib"
	expect_balanced "anybin-dlopen graph balanced in every thread"
	expect_func "anybin-dlopen library called from every thread, each call once" dl_work count 800
	expect_func "anybin-dlopen 4-byte int3 entry, each call once" dl_add count 8000
	# dl_mix: 8000 from the four, and those of the library's own thread
	# (500000) made after its entry was patched
	t "$(awk -v c="$(fv dl_mix count)" 'BEGIN { exit !(c >= 8000 && c <= 508000) }'; echo $?)" \
		"anybin-dlopen jmp entry, each call at most once" "dl_mix: $(fv dl_mix count) calls"
	t "$(grep -q "libdlt.so has no call sites: 6 of 6 functions patched at their entry (1 with int3" "$RES/t.err" &&
		grep -qE "[1-9][0-9]* jump-optimised with threads running" "$RES/t.err"; echo $?)" \
		"anybin-dlopen entries int3 first, jmps once no thread is in the way" "$(head -5 "$RES/t.err")"
	ANYBIN_ROPTS="--libcall -l *:mod:libdlt.so -l main" anybin_run anybin-gotcall "$d/gotcall"
	expect_balanced "anybin-gotcall graph balanced"
	expect_func "anybin-gotcall call through the GOT into a jmp entry recorded once" dl_work count 3 depth 1
	expect_func "anybin-gotcall call through the GOT into an int3 entry recorded once" dl_add count 31
}

check_anybin_all() {
	case $CFG in *-patch) ;; *) return ;; esac
	local p
	for p in $ANYBIN_PROGS; do
		check_anybin_prog "$p"
	done
	check_anybin_filters
	check_anybin_short
}
