# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-regs.sh - in-process probes (--probe without PATH:),
# per configuration: probes-regs: every general register a probe names
# at a function's entry reads what tests/progs/probe_regs.c put there,
# through each way of the site trampoline (arch/x86_64/inproc_probe.S):
# the lean one (-p nop, caller-saved registers only), the full one (a
# probe naming callee-saved registers; a lean probe sharing its site with
# one that is not), and the lean one handing over (function_graph's
# entry runs first at a traced site; a trigger)

e2e_cfg probes-regs probes check_probes_regs

LEAN='p:rl regs_lean di=%di:u64 si=%si:u64 dx=%dx:u64 cx=%cx:u64 r8=%r8:u64 r9=%r9:u64 ax=%ax:u64 r10=%r10:u64 r11=%r11:u64'
KEPT='p:rk regs_kept bx=%bx:u64 bp=%bp:u64 r12=%r12:u64 r13=%r13:u64 r14=%r14:u64 r15=%r15:u64 di=%di:u64'

# regs_check WAY EVENT WORD: EVENT's values equal the program's WORD lines
regs_check() {
	local want got
	want=$(sed -n "s/^$3 //p" "$RES/u.out")
	got=$(probe_vals "$2")
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$CFG probes-regs $1: $2 reads each register" \
		"want: $want" "got: $got"
}

check_probes_regs() {
	probe_run probes-regs probe_regs -p nop --probe "$LEAN" --probe "$KEPT" || return
	regs_check "lean (nop)" rl lean
	regs_check "full (callee-saved, nop)" rk kept
	probe_run probes-regs probe_regs -p function_graph --probe "$LEAN" --probe "$KEPT" || return
	regs_check "lean handing over (function_graph)" rl lean
	regs_check "full (function_graph)" rk kept
	probe_run probes-regs probe_regs -p nop --probe "$LEAN" -e probes:rl -R stacktrace || return
	regs_check "lean handing over (a stacktrace trigger)" rl lean
	t "$([ "$(grep -c '<stack trace>' "$RES/rep.txt")" = 3 ]; echo $?)" \
		"$CFG probes-regs lean handing over: three stacks" "$(grep -c '<stack trace>' "$RES/rep.txt")"
	probe_run probes-regs probe_regs -p nop --probe "$LEAN" --probe 'p:rx regs_lean bx=%bx:u64' || return
	regs_check "lean probe at a full site" rl lean
	t "$([ "$(probe_vals rx | sort -u | wc -l)" = 3 ]; echo $?)" "$CFG probes-regs full site: rx's three %bx" \
		"$(probe_vals rx)"
}
