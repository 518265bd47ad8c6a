#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/kstack.sh BUILD_DIR - the kernel's own stacks of kernel
# events (the kernel has the stacktrace trigger: utrace gives it -R
# stacktrace, and arms it for a hist keyed on common_stacktrace).  A
# program sleeps four times (tests/kernel/ksleep.c):
#
#   - -R 'stacktrace:2 if prev_comm == "ksleep"' on sched:sched_switch:
#     two <stack trace> blocks, each right after a sched_switch of ksleep,
#     named from the saved kallsyms, with __schedule among the frames; and
#     trace-cmd reports them from `utrace convert`'s file (if installed)
#   - -R 'hist:keys=common_stacktrace if prev_comm == "ksleep"': entries
#     whose first frame is __schedule+0xOFF/0xSIZE (%pS), hitcounts that
#     add up to the sched_switch records of ksleep kept, nothing dropped,
#     and no stack saved in the trace (armed for the hist only)
#   - with -f FILTER on the event: a stack after each event recorded only
#   - a filter the kernel refuses: its error_log text, a caret, status 2
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
need_root "kernel events need root (tracefs instances)"
find_tracefs
if [ -z "$TR" ] || [ ! -d "$TR/instances" ] || [ ! -f "$TR/events/sched/sched_switch/trigger" ]; then
	unsupported "no tracefs with instances and sched_switch triggers"
fi
if ! grep -qw stacktrace "$TR/events/sched/sched_switch/trigger"; then
	unsupported "this kernel has no stacktrace trigger"
fi
T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
if ! ${CC:-cc} -O0 -fno-omit-frame-pointer -o "$T/ksleep" "$ROOT/tests/kernel/ksleep.c" \
	2>"$T/cc.err"; then
	notok "build tests/kernel/ksleep.c"
	exit 1
fi

# ---- -R stacktrace:2 ------------------------------------------------------
"$U" record -p nop -o "$T/st.dat" -e sched:sched_switch -R 'stacktrace:2 if prev_comm == "ksleep"' \
	-- "$T/ksleep" >"$T/st.out" 2>"$T/st.err"
st=$?
# ksleep's first switches are utrace's start-up (its constructor waits for
# the recorder): the kernel spends the count on them, and the report shows
# them only with -O utrace-own (docs/utrace-record.md, KERNEL EVENTS)
"$U" report -O utrace-own -i "$T/st.dat" >"$T/st.txt" 2>"$T/st.rerr"
check "stacktrace:2: the recording ran (status $st)" [ "$st" = 0 ]
n=$(grep -c ': <stack trace>$' "$T/st.txt")
check "stacktrace:2: two <stack trace> blocks (got $n)" [ "$n" = 2 ]
# each block: after a sched_switch of ksleep on its CPU (another CPU's
# event may come between them in time); its frames " => name", one of
# them __schedule (a preemption comes through __cond_resched or
# preempt_schedule_irq, not schedule); none left as a bare address
awk '
	match($0, /\[[0-9]+\]/) { cpu = substr($0, RSTART, RLENGTH) }
	/: <stack trace>$/ { blocks++; if (prev[cpu] !~ /sched_switch: prev_comm=ksleep /) bad++; inb = 1; sch = 0; next }
	inb && /^ => / { frames++; if ($2 == "__schedule") sch = 1; if ($2 ~ /^0x/) bad++; next }
	inb { inb = 0; if (!sch) bad++ }
	{ prev[cpu] = $0 }
	END { if (inb && !sch) bad++; print blocks + 0, frames + 0, bad + 0 }' "$T/st.txt" >"$T/st.awk"
read -r blocks frames bad <"$T/st.awk"
check "stacktrace:2: each block after a sched_switch of ksleep, named frames with __schedule ($blocks blocks, $frames frames, $bad bad)" \
	eval '[ "$blocks" = 2 ] && [ "$frames" -ge 4 ] && [ "$bad" = 0 ]'
n=$(grep ': <stack trace>$' "$T/st.txt" | grep -c '\] d\.\.[1-9a-f]\. ')
check "stacktrace:2: the kernel's context column, irqs off inside the scheduler (d..N., got $n)" \
	[ "$n" = 2 ]
check "stacktrace:2: the kernel's first frames (the tracepoint's)" \
	grep -qx ' => trace_event_raw_event_sched_switch' "$T/st.txt"

# with -f on the event: a stack for each event recorded, none for the
# others (the kernel takes it before it filters: the filter is added)
"$U" record -p nop -o "$T/f.dat" -e sched:sched_switch -f 'prev_comm == "ksleep"' -R 'stacktrace' \
	-- "$T/ksleep" >"$T/f.out" 2>"$T/f.err"
"$U" report -i "$T/f.dat" >"$T/f.txt" 2>&1
awk '/: <stack trace>$/ { if (prev !~ /sched_switch: prev_comm=ksleep /) bad++; stacks++ }
	/sched_switch:/ { events++ }
	{ prev = $0 }
	END { print events + 0, stacks + 0, bad + 0 }' "$T/f.txt" >"$T/f.awk"
read -r events stacks bad <"$T/f.awk"
check "-f with stacktrace: one stack after each event recorded ($events events, $stacks stacks, $bad misplaced)" \
	eval '[ "$events" -ge 4 ] && [ "$stacks" = "$events" ] && [ "$bad" = 0 ]'

# trace-cmd sees them in the converted file: ftrace's kernel_stack entry,
# its frames named by the kallsyms entries convert writes (the program's:
# convert leaves utrace's own out, as report does)
if command -v trace-cmd >/dev/null; then
	"$U" convert -i "$T/f.dat" -o "$T/f.trace.dat" >"$T/cv.out" 2>&1
	trace-cmd report -i "$T/f.trace.dat" >"$T/cv.txt" 2>&1
	n=$(grep -c ': *kernel_stack: *<stack trace *>' "$T/cv.txt")
	check "convert: trace-cmd reports the report's $stacks kernel_stack entries (got $n)" \
		[ "$n" = "$stacks" ]
	check "convert: their frames named, __schedule among them" \
		grep -q '^=> __schedule (ffffffff[0-9a-f]*)$' "$T/cv.txt"
	n=$(grep -c '^=> ffffffff[0-9a-f]*$' "$T/cv.txt")
	check "convert: no frame left unnamed (got $n)" [ "$n" = 0 ]
else
	echo "# trace-cmd is not installed: the converted stacks are not checked"
fi

# ---- hist:keys=common_stacktrace -----------------------------------------
"$U" record -p nop -o "$T/h.dat" -e sched:sched_switch \
	-R 'hist:keys=common_stacktrace if prev_comm == "ksleep"' -- "$T/ksleep" >"$T/h.out" 2>"$T/h.err"
st=$?
"$U" report --hist -i "$T/h.dat" >"$T/h.hist" 2>&1
# the kernel's histogram counts utrace's own switches too: all of them
"$U" report -O utrace-own -i "$T/h.dat" >"$T/h.txt" 2>&1
check "stack hist: the recording ran (status $st)" [ "$st" = 0 ]
check "stack hist: the kernel's header" \
	grep -qx '# trigger info: hist:keys=common_stacktrace:vals=hitcount:sort=hitcount:size=2048 if prev_comm == "ksleep" \[active\]' \
	"$T/h.hist"
sum=$(awk '/^} hitcount:/ { s += $3 } END { print s + 0 }' "$T/h.hist")
kept=$(grep -c 'sched_switch: prev_comm=ksleep ' "$T/h.txt")
check "stack hist: hitcounts add up to the sched_switch records of ksleep (sum $sum, kept $kept)" \
	eval '[ "$sum" -ge 4 ] && [ "$sum" = "$kept" ]'
firsts=$(awk '/^{ common_stacktrace:$/ { getline; print }' "$T/h.hist" | sort -u)
check "stack hist: each entry starts in __schedule, as %pS (got '$firsts')" \
	eval '[ -n "$firsts" ] && ! grep -qv "^         __schedule+0x[0-9a-f]*/0x[0-9a-f]*\$" <<<"$firsts"'
check "stack hist: nothing dropped" grep -qx '    Dropped: 0' "$T/h.hist"
n=$(grep -c '<stack trace>' "$T/h.txt")
check "stack hist: the stacks armed for it are not saved in the trace (got $n)" [ "$n" = 0 ]

# ---- the kernel's error ---------------------------------------------------
"$U" record -o "$T/bad.dat" -e sched:sched_switch -R 'stacktrace if nope == 1' \
	-- "$T/ksleep" >"$T/bad.out" 2>"$T/bad.err"
st=$?
check "bad filter: status 2 (got $st)" [ "$st" = 2 ]
check "bad filter: the kernel's error_log text" \
	grep -q "^utrace record: -R 'stacktrace if nope == 1': sched:sched_switch: .*Field not found" \
	"$T/bad.err"
check "bad filter: a caret under the trigger" grep -qx '  stacktrace if nope == 1' "$T/bad.err"
