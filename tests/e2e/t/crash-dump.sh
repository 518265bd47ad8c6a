# SPDX-License-Identifier: MIT
#
# tests/e2e/t/crash-dump.sh - record --dump-on-crash on tests/progs/crashdump.c
# (one test per configuration): a NULL store 30 calls down a recursion, in
# a signal handler, in a second thread, with the program's own SIGSEGV
# handler; abort(); a division by zero; __builtin_trap(); a read past the
# end of a mapped file; the recursion under the function
# tracer and --overwrite; the thread with =all.
# Must hold: exit status, stdout and stderr (the dump aside) as untraced;
# the dump names the thread and the signal with its code, address and
# function+offset; its calls are the thread's last ones before the signal
# in `utrace report`, as many as asked; the report shows the signal.

e2e_cfg crash-dump - check_crash_dump

CRASH_N=8

# crash_run TAG MODE RECORD-OPTIONS...: the program untraced and traced
# into $RES/TAG.*; sets $ust and $tst
crash_run() {
	local tag=$1 mode=$2
	shift 2
	(cd "$RUN" && { timeout -k 5 "$TMO" "$BIN/crashdump" "$mode" >"$RES/$tag.u.out" \
		2>"$RES/$tag.u.err" </dev/null; } 2>/dev/null)
	ust=$?
	(cd "$RUN" && { timeout -k 5 "$TMO" "$UTRACE" record "$@" -o "$RES/$tag.dat" -- \
		"$BIN/crashdump" "$mode" >"$RES/$tag.t.out" 2>"$RES/$tag.t.err" </dev/null; } 2>/dev/null)
	tst=$?
}

# crash_body TAG TID: the calls of TID's dump (without the report's header)
crash_body() {
	awk -v t="$2" '
		/^Dumping the last [0-9]+ calls of thread / { inb = ($8 == t || $8 == t ":"); n = 0; next }
		inb && /^-+$/ { if (++n == 2) inb = 0; next }
		inb && n == 1 && !/^#/ { print }' "$RES/$1.t.err"
}

# crash_in_report TAG TID: 0 if TID's dump is a run of consecutive lines of
# `utrace report --tid TID` that ends with a signal line
crash_in_report() {
	local tag=$1 tid=$2 n k
	crash_body "$tag" "$tid" >"$RES/$tag.body"
	"$UTRACE" report -i "$RES/$tag.dat" --tid "$tid" 2>/dev/null | grep -v '^#' >"$RES/$tag.rep"
	n=$(wc -l <"$RES/$tag.body")
	[ "$n" -gt 0 ] && tail -1 "$RES/$tag.body" | grep -q 'signal: SIG' || return 1
	for k in $(grep -nxF -- "$(tail -1 "$RES/$tag.body")" "$RES/$tag.rep" | cut -d: -f1); do
		[ "$k" -ge "$n" ] || continue
		sed -n "$((k - n + 1)),${k}p" "$RES/$tag.rep" | cmp -s - "$RES/$tag.body" && return 0
	done
	return 1
}

# crash_case TAG MODE STATUS SIGNAL CODE IP-FUNCTION RECORD-OPTIONS...
crash_case() {
	local tag=$1 mode=$2 want=$3 sig=$4 code=$5 fn=$6 pid tid line calls
	shift 6
	crash_run "$tag" "$mode" "$@"
	t "$([ "$ust" = "$want" ] && [ "$tst" = "$want" ]; echo $?)" \
		"$CFG crash-dump $tag exit status ($want) as untraced" "untraced $ust, traced $tst" \
		"$(tail -5 "$RES/$tag.t.err")"
	t "$(cmp -s "$RES/$tag.u.out" "$RES/$tag.t.out"; echo $?)" "$CFG crash-dump $tag stdout" \
		"$(diff "$RES/$tag.u.out" "$RES/$tag.t.out" | head -5)"
	err_as_untraced "crash-dump $tag stderr (the dump aside)" "$tag"
	line=$(grep -E "^utrace: pid [0-9]+ died of $sig in thread [0-9]+\$" "$RES/$tag.t.err")
	pid=$(echo "$line" | awk '{ print $3 }')
	tid=$(echo "$line" | awk '{ print $NF }')
	t "$([ -n "$tid" ]; echo $?)" "$CFG crash-dump $tag dump names the thread that took $sig" \
		"$(grep -v '^ ' "$RES/$tag.t.err" | tail -5)"
	[ -n "$tid" ] || return
	if [ "$mode" = thread ]; then
		t "$([ "$tid" != "$pid" ]; echo $?)" "$CFG crash-dump $tag the second thread, not main" \
			"pid $pid, thread $tid"
	fi
	t "$(grep -qE "^thread $tid: signal: $sig code=$code (addr=0x[0-9a-f]+|pid=$pid) ip=$fn\\+0x[0-9a-f]+\$" \
		"$RES/$tag.t.err"; echo $?)" \
		"$CFG crash-dump $tag signal line: $sig $code at $fn+OFF" \
		"$(grep "^thread $tid: signal:" "$RES/$tag.t.err")"
	t "$(crash_in_report "$tag" "$tid"; echo $?)" \
		"$CFG crash-dump $tag dump = the thread's last lines of utrace report up to the signal" \
		"dump:" "$(tail -4 "$RES/$tag.body")" "report:" "$(grep -B3 'signal: SIG' "$RES/$tag.rep" | tail -4)"
	calls=$(grep -cE '\(\) \{$|\(\);$| <-' "$RES/$tag.body")
	t "$(grep -q "^Dumping the last $calls calls of thread $tid before its signal:" "$RES/$tag.t.err" &&
		[ "$calls" -ge "$CRASH_MIN" ] && [ "$calls" -le "$CRASH_N" ]; echo $?)" \
		"$CFG crash-dump $tag $calls calls dumped, as the header says (at most $CRASH_N)" \
		"$(grep '^Dumping' "$RES/$tag.t.err")"
}

check_crash_dump() {
	local ust tst
	res_begin crash-dump crashdump || return
	CRASH_MIN=$CRASH_N
	crash_case deep deep 139 SIGSEGV SEGV_MAPERR fault_here --dump-on-crash=$CRASH_N
	t "$(tail -n 3 "$RES/deep.body" | head -2 | grep -c -e 'fault_here() {$' -e 'leaf();$' |
		grep -qx 2 && head -n $((CRASH_N - 2)) "$RES/deep.body" | grep -vc 'descend() {$' |
		grep -qx 0; echo $?)" \
		"$CFG crash-dump deep the last calls: descend()s, fault_here(), leaf()" \
		"$(cat "$RES/deep.body")"
	t "$("$UTRACE" dump --chrome -i "$RES/deep.dat" 2>/dev/null |
		grep -q '"name":"signal: SIGSEGV code=SEGV_MAPERR addr=0x0 ip=fault_here+0x' &&
		"$UTRACE" dump -i "$RES/deep.dat" 2>/dev/null |
		grep -qE ' signal depth=[0-9]+ SIGSEGV code=SEGV_MAPERR addr=0x0 ip=fault_here\+0x'
		echo $?)" "$CFG crash-dump deep the signal in utrace dump and its Chrome export"
	crash_case function deep 139 SIGSEGV SEGV_MAPERR fault_here -p function \
		--dump-on-crash=$CRASH_N
	crash_case overwrite deep 139 SIGSEGV SEGV_MAPERR fault_here --overwrite -b 64 \
		--dump-on-crash=$CRASH_N
	CRASH_MIN=3
	crash_case handler handler 139 SIGSEGV SEGV_MAPERR fault_here --dump-on-crash=$CRASH_N
	crash_case thread thread 139 SIGSEGV SEGV_MAPERR fault_here --dump-on-crash=$CRASH_N
	crash_case own own 139 SIGSEGV SEGV_MAPERR fault_here --dump-on-crash=$CRASH_N
	t "$(grep -qx 'own handler: SIGSEGV at NULL' "$RES/own.t.err" &&
		grep -q 'own_handler_work() {$' "$RES/own.rep"; echo $?)" \
		"$CFG crash-dump own the program's handler ran, traced" "$(tail -5 "$RES/own.rep")"
	crash_case abort abort 134 SIGABRT SI_TKILL '[A-Za-z_][A-Za-z0-9_.]*' --dump-on-crash=$CRASH_N
	crash_case fpe fpe 136 SIGFPE FPE_INTDIV divide_here --dump-on-crash=$CRASH_N
	crash_case trap trap 132 SIGILL ILL_ILLOPN trap_here --dump-on-crash=$CRASH_N
	crash_case bus bus 135 SIGBUS BUS_ADRERR bus_here --dump-on-crash=$CRASH_N
	crash_run all thread --dump-on-crash=all
	t "$([ "$(grep -c '^Dumping the last [0-9]* calls of thread' "$RES/all.t.err")" = 2 ] &&
		tail -1 "$RES/all.t.err" | grep -qx -- '-*' &&
		grep '^Dumping' "$RES/all.t.err" | tail -1 | grep -q 'before its signal'; echo $?)" \
		"$CFG crash-dump =all: both threads, the one that crashed last" \
		"$(grep -E '^(Dumping|utrace:)' "$RES/all.t.err")"
	"$UTRACE" record --dump-on-crash=0 -o "$RES/x.dat" -- "$BIN/crashdump" >/dev/null 2>"$RES/use.err"
	tst=$?
	"$UTRACE" record --dump-on-crash -P $$ >/dev/null 2>>"$RES/use.err"
	ust=$?
	t "$([ "$tst" = 2 ] && [ "$ust" = 2 ] &&
		grep -qx 'utrace record: --dump-on-crash=0: a number of calls (1 to 1000000) or all' \
			"$RES/use.err" &&
		grep -q '^utrace record: --dump-on-crash goes with a command, not -P' "$RES/use.err"
		echo $?)" "$CFG crash-dump usage errors: =0, with -P" "$(cat "$RES/use.err")"
	# a probe whose reads fault (leaf's argument taken for a pointer): its
	# faults are fetch_fault.c's, not signals of the program
	crash_run probe deep --dump-on-crash --probe 'p:crashp leaf v=+0(%di):u32' -e probes:crashp
	"$UTRACE" report -i "$RES/probe.dat" >"$RES/probe.rep" 2>/dev/null
	t "$([ "$tst" = 139 ] && [ "$(grep -c 'signal: SIG' "$RES/probe.rep")" = 1 ] &&
		[ "$(grep -c 'crashp: ' "$RES/probe.rep")" -ge 4 ]; echo $?)" \
		"$CFG crash-dump a probe's faulting reads are not signals: one signal record" \
		"status $tst" "$(grep -E 'signal: |crashp: ' "$RES/probe.rep" | tail -4)"
	crash_run off deep
	t "$([ "$tst" = 139 ] && ! grep -q '^Dumping' "$RES/off.t.err" &&
		! "$UTRACE" report -i "$RES/off.dat" 2>/dev/null | grep -q 'signal: SIG'; echo $?)" \
		"$CFG crash-dump without the option: no dump, no signal record" \
		"$(tail -3 "$RES/off.t.err")"
}
