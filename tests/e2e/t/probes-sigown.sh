# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-sigown.sh - in-process probes (--probe without PATH:),
# per configuration, on tests/progs/probesig.c: a probe's reads that fault
# (SIGSEGV and SIGBUS) give 0 and never reach the program's own
# dispositions for those signals: a handler set with signal() after the
# runtime's, an SA_SIGINFO handler (read back as set, returning from a
# fault it mends), none (killed by SIGSEGV), SIG_IGN inherited from
# before the runtime started; and the same with --dump-on-crash, whose
# handler does the probes' fixup.  Must hold: exit status, stdout and
# stderr as untraced, and hit()'s four records a=0 x=0, a=42 x=1, a=0 x=2,
# a=0 x=3.

e2e_cfg probes-sigown probes check_probes_sigown

SIGOWN_PROBE='p:sigown hit a=+0(%di):u64 x=%si:u64'
SIGOWN_WANT='a=0 x=0
a=42 x=1
a=0 x=2
a=0 x=3'

# sigown_case TAG MODE STATUS RECORD-OPTIONS...: probesig MODE untraced and
# traced (SIGSEGV ignored for MODE ign), compared; the probe's records
sigown_case() {
	local tag=$1 mode=$2 want=$3 ust tst pre='' got
	shift 3
	[ "$mode" = ign ] && pre="trap '' SEGV;"
	(cd "$RUN" && { timeout -k 5 "$TMO" bash -c "$pre exec \"\$@\"" - "$BIN/probesig" "$mode" \
		>"$RES/$tag.u.out" 2>"$RES/$tag.u.err" </dev/null; } 2>/dev/null)
	ust=$?
	(cd "$RUN" && { timeout -k 5 "$TMO" bash -c "$pre exec \"\$@\"" - "$UTRACE" record "$@" \
		--probe "$SIGOWN_PROBE" -o "$RES/$tag.dat" -- "$BIN/probesig" "$mode" \
		>"$RES/$tag.t.out" 2>"$RES/$tag.t.err" </dev/null; } 2>/dev/null)
	tst=$?
	t "$([ "$ust" = "$want" ] && [ "$tst" = "$want" ]; echo $?)" \
		"$CFG probes-sigown $tag exit status ($want) as untraced" "untraced $ust, traced $tst" \
		"$(tail -3 "$RES/$tag.t.err")"
	t "$([ -s "$RES/$tag.u.out" ] && cmp -s "$RES/$tag.u.out" "$RES/$tag.t.out"; echo $?)" \
		"$CFG probes-sigown $tag stdout as untraced" \
		"$(diff "$RES/$tag.u.out" "$RES/$tag.t.out" | head -6)"
	err_as_untraced "probes-sigown $tag stderr as untraced" "$tag"
	timeout -k 5 "$TMO" "$UTRACE" report -i "$RES/$tag.dat" >"$RES/$tag.rep" 2>"$RES/$tag.rep.err"
	got=$(sed -n 's/.* sigown: ([^)]*) \(.*\)/\1/p' "$RES/$tag.rep" | sed 's/ *\*\/ *$//')
	t "$([ "$got" = "$SIGOWN_WANT" ]; echo $?)" \
		"$CFG probes-sigown $tag the faulting reads give 0, the good one 42" "got:" "$got"
}

check_probes_sigown() {
	res_begin probes-sigown probesig || return
	sigown_case late late 3 -p nop
	sigown_case siginfo siginfo 4 -p nop
	sigown_case none none 139 -p nop
	sigown_case ign ign 139 -p nop
	sigown_case graph late 3
	sigown_case crash-late late 3 -p nop --dump-on-crash
	sigown_case crash-none none 139 --dump-on-crash
	t "$([ "$(grep -c 'signal: SIGSEGV' "$RES/crash-none.rep")" = 1 ]; echo $?)" \
		"$CFG probes-sigown crash-none one signal record: the program's own fault" \
		"$(grep 'signal: ' "$RES/crash-none.rep")"
}
