#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/ftracetest/run.sh BUILD_DIR [CASE.tc...] - the kernel's own ftrace
# selftests (tools/testing/selftests/ftrace of Linux v6.12, the ftracetest
# runner and its test.d/**/*.tc cases) run unchanged against utrace's
# tracefs (issue 23).
#
# The suite comes from Debian's linux-source-6.12 package (scripts/
# install-deps.sh test installs it): only that folder is extracted from
# /usr/src/linux-source-6.12.tar.xz, once, into $FTRACETEST_CACHE (default
# /var/cache/utrace-ftracetest); it is never copied into this repository.
# ping (iputils-ping, also installed by it) is the suite's own: its yield
# and the inter-event cases run it (UNRESOLVED without).
# The adapter, two things: a copy of the runner, next to it, whose
# TRACING_DIR is the folder we give it instead of the first tracefs of
# /proc/mounts; and the runner runs in a mount namespace of its own
# (unshare -m) where /sys/kernel/tracing is the folder we give it (a case
# that cd's there goes on in it) and two kernel files are the tracefs'
# own (PROC_NS):
# /proc/kallsyms is utrace.kallsyms, the traced programs' symbols at
# their run-time addresses, as the kernel lists its own (the cases look
# kernel_clone, their probe addresses and the functions of call_site up
# there); /proc/sys/kernel/stack_tracer_enabled, the stack tracer's
# switch (a sysctl, not a tracefs file), is utrace.stack_tracer_enabled;
# debugfs' kprobes/list (/sys/kernel/debug/kprobes/list) is
# utrace.kprobes_list and the sysctl /proc/sys/debug/kprobes-optimization
# utrace.kprobes-optimization (kprobe_opt_types.tc reads both).  A file
# this kernel does not have (no stack tracer, no debugfs mounted, no
# CONFIG_OPTPROBES) has nothing to bind over: its folder becomes a tmpfs
# holding a bind of each real entry (the runner writes
# /proc/sys/kernel/sched_rt_runtime_us) and the tracefs file under the
# kernel's name.  No case is edited.  HOME is an
# empty folder (no case writes outside the tracing folder).  The runner
# repeats each case whose header says `# flags: instance` in a new
# instances/ftracetest.XXXXXX (TRACING_DIR that instance): that repeat is
# counted as a case of its own, named CASE:instance (in known-fail too),
# with the verdict ftracetest prints for it ("[2] (instance) ...").
#
# Each case runs in a fresh session, `utrace record -p nop --tracefs DIR
# -- kprog`: kprog.c's functions and static tracepoints have the names and
# field layouts the cases use (kernel_clone, schedule, vfs_read, dput ...;
# sched:sched_switch, kmem:kmem_cache_free, signal:signal_generate ...).
#
# The cases of SYSTEM_CASES (issue 23 group K) test the suite's own shell
# and the commands it starts: for them the runner itself runs inside the
# recording, `utrace record -p nop -c -e SCHED_EVENTS --tracefs DIR -- sh -c
# 'kprog & ftracetest'`, so that the shell and every command it starts are
# traced programs (their fork and exec followed), and the kernel's sched
# events of them come from utrace's kernel instance: events/sched/* are
# then the kernel's (they hide kprog's of the same names), their triggers
# and hists run in the recorder.  kprog runs beside it, as in the other
# cases, for the names of its functions and its other events.  The
# wakeup tracers' cases are among them: their `chrt -f 5 sleep 1` must
# be a traced process, whose wakeup and switch the kernel instance keeps.
#
# Verdicts, as ftracetest prints them: PASS and XFAIL are "ok".  FAIL,
# UNRESOLVED, UNSUPPORTED and a case that ran out of time (TIMEOUT) are
# "not ok" and count as failures, unless tests/ftracetest/known-fail lists
# the case with that very verdict: then the line still says "not ok" (or
# "ok ... # SKIP" for UNSUPPORTED/UNRESOLVED) with the list's reason, and
# the summary counts it neither as passed nor as failed.  A listed case
# that now PASSes, or gives another verdict than the list's, is a failure
# ("remove it from known-fail" / "update known-fail"): the list can only
# shrink, never hide a change.  A case whose verdict is neither PASS nor
# the listed one is run a second time (timing under load), which it says;
# the second verdict counts.  The end is one line per category with the
# counts of PASS, FAIL, UNRESOLVED and UNSUPPORTED, and "ftracetest: N
# passed, N failed".  A case runs at most FTRACETEST_TIMEOUT seconds (60).
# The logs of every case not PASSing are kept in BUILD_DIR/ftracetest/logs.
# Every case known-fail lists as UNSUPPORTED or UNRESOLVED must be in
# docs/utrace-tracefs.md's list of the cases that cannot run, with why
# (a failure otherwise).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B
shift $(($# > 0 ? 1 : 0))
U=$B/utrace
export LC_ALL=C
TARBALL=/usr/src/linux-source-6.12.tar.xz
CACHE=${FTRACETEST_CACHE:-/var/cache/utrace-ftracetest}
FT=$CACHE/linux-source-6.12/tools/testing/selftests/ftrace
KNOWN=$ROOT/tests/ftracetest/known-fail
CASE_TIMEOUT=${FTRACETEST_TIMEOUT:-60}
OUT=$B/ftracetest

die() { echo "not ok - $*"; echo "ftracetest: 0 passed, 1 failed"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "ftracetest must run as root (the runner refuses otherwise)"
[ -c /dev/fuse ] || die "no /dev/fuse: the tracefs cannot be mounted"
[ -x "$U" ] || die "$U is not built"

# the suite, extracted once
if [ ! -x "$FT/ftracetest" ]; then
	[ -f "$TARBALL" ] || die "$TARBALL is missing: scripts/install-deps.sh test installs linux-source-6.12"
	mkdir -p "$CACHE" && tmp=$(mktemp -d "$CACHE/.x.XXXXXX") || die "cannot write $CACHE"
	tar -xJf "$TARBALL" -C "$tmp" --wildcards 'linux-source-6.12/tools/testing/selftests/ftrace' ||
		die "extract the ftrace selftests from $TARBALL"
	rm -rf "$CACHE/linux-source-6.12"
	mv "$tmp/linux-source-6.12" "$CACHE/" && rmdir "$tmp"
fi
# the adapter: the runner, told where the tracing folder is
# (written aside and renamed: two runs sharing the cache never see half a file)
sed 's|^TRACING_DIR=`grep tracefs /proc/mounts.*|TRACING_DIR=$UTRACE_TRACING_DIR|' \
	"$FT/ftracetest" >"$FT/ftracetest-utrace.$$" && chmod +x "$FT/ftracetest-utrace.$$" &&
	mv -f "$FT/ftracetest-utrace.$$" "$FT/ftracetest-utrace"
grep -q '^TRACING_DIR=$UTRACE_TRACING_DIR$' "$FT/ftracetest-utrace" ||
	die "the runner's TRACING_DIR line changed: adapt run.sh"

mkdir -p "$OUT/logs" || die "cannot write $OUT"
cc -O2 -g $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/ftracetest/events" -o "$OUT/kprog" \
	"$ROOT/tests/ftracetest/kprog.c" "$ROOT/tests/ftracetest/kprog_text.c" \
	"$ROOT/tests/ftracetest/events/"*.c || die "build kprog"

# the cases about the suite's own shell and what it starts (see above)
SYSTEM_CASES=" $(echo \
	dynevent/add_remove_eprobe.tc \
	dynevent/add_remove_uprobe.tc \
	event/event-pid.tc \
	trigger/inter-event/trigger-field-variable-support.tc \
	trigger/inter-event/trigger-inter-event-combined-hist.tc \
	trigger/inter-event/trigger-onchange-action-hist.tc \
	trigger/inter-event/trigger-onmatch-action-hist.tc \
	trigger/inter-event/trigger-onmax-action-hist.tc \
	trigger/inter-event/trigger-snapshot-action-hist.tc \
	trigger/inter-event/trigger-synthetic-eprobe.tc \
	trigger/inter-event/trigger-synthetic-event-dynstring.tc \
	trigger/inter-event/trigger-trace-action-hist.tc \
	trigger/trigger-hist-mod.tc \
	trigger/trigger-hist.tc \
	trigger/trigger-multihist.tc \
	trigger/trigger-trace-marker-synthetic-kernel.tc \
	tracer/wakeup.tc \
	tracer/wakeup_rt.tc) "
SCHED_EVENTS="sched_process_fork sched_process_exec sched_process_exit sched_switch sched_waking sched_wakeup"
# the kernel events a system case needs besides SCHED_EVENTS: CASE=SYS:EVENT,...
# (the event probes' cases: their attached events are the kernel's syscalls)
SYSTEM_EVENTS=" $(echo \
	dynevent/add_remove_eprobe.tc=syscalls:sys_enter_chdir \
	trigger/inter-event/trigger-synthetic-eprobe.tc=syscalls:sys_enter_openat,syscalls:sys_exit_openat) "

# the command after it, in the mount namespace unshare -m made: with the
# tracefs' utrace.kallsyms as /proc/kallsyms, the tracefs as
# /sys/kernel/tracing (a case that goes there, add_remove_eprobe's `cd
# /sys/kernel/tracing`, goes on in the folder it was given), and three of
# its files over the kernel's that are not tracefs files (over SRC PATH):
# utrace.stack_tracer_enabled as /proc/sys/kernel/stack_tracer_enabled,
# utrace.kprobes_list as debugfs' /sys/kernel/debug/kprobes/list,
# utrace.kprobes-optimization as /proc/sys/debug/kprobes-optimization.  A
# PATH this kernel does not have is made in a tmpfs over the nearest
# folder it has (its mode kept), which holds a bind of each of its real
# entries (made from a bind of the folder taken first, then let go of).
# shellcheck disable=SC2016 # its own variables
PROC_NS='over() {
		if [ ! -e "$2" ]; then
			p=${2%/*}
			while [ ! -d "$p" ]; do p=${p%/*}; done
			k=$(mktemp -d) && mount --bind "$p" "$k" &&
				mount -t tmpfs -o mode="$(stat -c %a "$p")" utrace-ns "$p" || return 1
			for e in "$k"/*; do
				[ -e "$e" ] || continue
				n=$p/${e##*/}
				{ if [ -d "$e" ]; then mkdir "$n"; else : >"$n"; fi; } &&
					mount --bind "$e" "$n" || return 1
			done
			umount "$k" && rmdir "$k" && mkdir -p "${2%/*}" && : >"$2" || return 1
		fi
		mount --bind "$1" "$2"
	}
	mount --bind "$UTRACE_TRACING_DIR/utrace.kallsyms" /proc/kallsyms &&
	mount --bind "$UTRACE_TRACING_DIR" /sys/kernel/tracing &&
	over "$UTRACE_TRACING_DIR/utrace.stack_tracer_enabled" /proc/sys/kernel/stack_tracer_enabled &&
	over "$UTRACE_TRACING_DIR/utrace.kprobes_list" /sys/kernel/debug/kprobes/list &&
	over "$UTRACE_TRACING_DIR/utrace.kprobes-optimization" \
		/proc/sys/debug/kprobes-optimization && exec "$@"'

# run_system T CASE.tc: the runner inside the recording, kprog beside it
# (started first: the runner waits for its events to be listed)
run_system() {
	local t=$1 tc=$2 e=() x
	for ev in $SCHED_EVENTS; do e+=(-e "sched:$ev"); done
	x=${SYSTEM_EVENTS#*" ${tc#"$FT/test.d/"}="}
	[ "$x" = "$SYSTEM_EVENTS" ] || for ev in $(echo "${x%% *}" | tr , ' '); do e+=(-e "$ev"); done
	# shellcheck disable=SC2016 # the inner script's own variables
	HOME=$t/home UTRACE_TRACING_DIR=$t/mnt PROC_NS=$PROC_NS \
		timeout -k 5 $((CASE_TIMEOUT + 10)) \
		"$U" record -p nop -c "${e[@]}" --tracefs "$t/mnt" -o "$t/k.dat" -- sh -c '
		"$1" "$2" & kp=$!
		i=0
		while ! grep -qs "^kmem:" "$UTRACE_TRACING_DIR/available_events" && [ $i -lt 200 ]; do
			sleep 0.05; i=$((i + 1))
		done
		(cd "$3" && unshare -m sh -c "$PROC_NS" kallsyms \
			timeout -k 5 "$4" sh ./ftracetest-utrace -l "$5" -k "$6") >"$7" 2>&1 </dev/null
		touch "$2"; wait $kp' sh "$OUT/kprog" "$t/stop" "$FT" "$CASE_TIMEOUT" "$t/logs" "$tc" \
		"$t/run.out" >"$t/record.out" 2>&1 </dev/null
	mountpoint -q "$t/mnt" && { fusermount3 -u "$t/mnt" 2>/dev/null || umount -l "$t/mnt"; }
}

# run_case CASE.tc: prints its verdict (PASS, FAIL, ... or TIMEOUT) and,
# for a case the runner repeats in an instance, the repeat's
run_case() {
	local tc=$1 t rp v vi
	t=$(mktemp -d /tmp/utrace-ftracetest.XXXXXX) || return 1
	mkdir -p "$t/mnt" "$t/home" "$t/logs"
	if [[ $SYSTEM_CASES = *" ${tc#"$FT/test.d/"} "* ]]; then
		run_system "$t" "$tc"
		rp=
	else
		# (kprog real-time: it calls kernel_clone every millisecond even
		# under load, as the kernel does in each fork of the case's shell)
		KPROG_FIFO=1 "$U" record -p nop --tracefs "$t/mnt" -o "$t/k.dat" -- "$OUT/kprog" "$t/stop" \
			>"$t/record.out" 2>&1 &
		rp=$!
		for _ in $(seq 200); do grep -qs . "$t/mnt/available_events" && break; sleep 0.05; done
		(cd "$FT" && HOME=$t/home UTRACE_TRACING_DIR=$t/mnt unshare -m sh -c "$PROC_NS" \
			kallsyms timeout -k 5 "$CASE_TIMEOUT" sh ./ftracetest-utrace -l "$t/logs" \
			-k "$tc") >"$t/run.out" 2>&1 </dev/null
	fi
	v=$(sed -n 's/^\[1\].*\[\([A-Z]*\)\]$/\1/p' "$t/logs/ftracetest.log" 2>/dev/null | head -1)
	[ -n "$v" ] || v=TIMEOUT
	if grep -q "^#[ \t]*flags:.*instance" "$tc"; then
		vi=$(sed -n 's/^\[2\] (instance) .*\[\([A-Z]*\)\]$/\1/p' "$t/logs/ftracetest.log" \
			2>/dev/null | head -1)
		v="$v ${vi:-TIMEOUT}"
	fi
	touch "$t/stop"
	if [ -n "$rp" ]; then
		for _ in $(seq 100); do kill -0 "$rp" 2>/dev/null || break; sleep 0.1; done
		kill "$rp" 2>/dev/null && wait "$rp" 2>/dev/null
		wait "$rp" 2>/dev/null
	fi
	mountpoint -q "$t/mnt" && { fusermount3 -u "$t/mnt" 2>/dev/null || umount -l "$t/mnt"; }
	if [ "$v" != PASS ] && [ "$v" != "PASS PASS" ]; then
		local name=${tc#"$FT/test.d/"}
		cat "$t/run.out" "$t/logs/"*-log.* "$t/record.out" >"$OUT/logs/${name//\//_}.log" 2>/dev/null
	fi
	rm -rf "$t"
	echo "$v"
}

# known VERDICT of a case in known-fail ("CASE VERDICT REASON..." lines)
known() { awk -v c="$1" '$1 == c { print $2; exit }' "$KNOWN" 2>/dev/null; }
reason() { awk -v c="$1" '$1 == c { $1 = ""; $2 = ""; sub(/^  /, ""); print; exit }' "$KNOWN"; }

# every case known-fail says is UNSUPPORTED or UNRESOLVED has its line,
# "- `CASE` (VERDICT): why", in docs/utrace-tracefs.md's list of the cases
# that cannot run
DOC=$ROOT/docs/utrace-tracefs.md
doc_failed=0
while read -r c v _; do
	case $v in UNSUPPORTED | UNRESOLVED) ;; *) continue ;; esac
	grep -qF -- "- \`$c\` ($v):" "$DOC" && continue
	echo "not ok - $c: known-fail says $v, docs/utrace-tracefs.md does not list it with why"
	doc_failed=$((doc_failed + 1))
done < <(grep -v '^#' "$KNOWN")

if [ $# -gt 0 ]; then
	cases=("$@")
else
	mapfile -t cases < <(cd "$FT/test.d" && find . -name '*.tc' | sed 's|^\./||' | sort)
fi
passed=0 failed=$doc_failed known_n=0 counted=0
declare -A cnt cats

# unexpected NAME VERDICT: neither a pass nor what known-fail lists
unexpected() { [ "$2" != PASS ] && [ "$2" != XFAIL ] && [ "$2" != "$(known "$1")" ]; }

# account NAME VERDICT: counts and says the verdict of NAME (a case, or
# CASE:instance, its repeat in an instance)
account() {
	local c=$1 v=$2 k cat
	k=$(known "$c")
	cat=${c%%/*}
	cnt[$cat $v]=$((${cnt[$cat $v]:-0} + 1))
	cats[$cat]=1
	counted=$((counted + 1))
	if [ "$v" = PASS ] || [ "$v" = XFAIL ]; then
		if [ -n "$k" ]; then
			echo "not ok - $c passes: remove it from known-fail"
			failed=$((failed + 1))
		else
			echo "ok - $c $v"
			passed=$((passed + 1))
		fi
	elif [ "$k" = "$v" ]; then
		case $v in
		UNSUPPORTED | UNRESOLVED) echo "ok - $c # SKIP $v (known: $(reason "$c"))" ;;
		*) echo "not ok - $c $v (known, not counted: $(reason "$c"))" ;;
		esac
		known_n=$((known_n + 1))
	elif [ -n "$k" ]; then
		echo "not ok - $c $v, known-fail says $k: update known-fail"
		failed=$((failed + 1))
	else
		local c0=${c%:instance}
		echo "not ok - $c $v (log: $OUT/logs/${c0//\//_}.log)"
		failed=$((failed + 1))
	fi
}

start=$SECONDS
for c in "${cases[@]}"; do
	c=${c%:instance}
	# shellcheck disable=SC2046 # one or two words
	set -- $(run_case "$FT/test.d/$c")
	# The cases time their windows for an idle kernel (a yield, a 1 ms
	# sleep): under load kprog may not run in one.  A case that gives a
	# verdict it should not (itself or its repeat in an instance) is run
	# once more, and says so; the second verdicts count (its log is the
	# second run's).
	if unexpected "$c" "$1" || { [ $# -gt 1 ] && unexpected "$c:instance" "$2"; }; then
		echo "# $c: $*; once more (load)"
		# shellcheck disable=SC2046
		set -- $(run_case "$FT/test.d/$c")
	fi
	account "$c" "$1"
	[ $# -gt 1 ] && account "$c:instance" "$2"
done
echo "# per category:   PASS  FAIL  UNRESOLVED  UNSUPPORTED  (other)"
for cat in $(printf '%s\n' "${!cats[@]}" | sort); do
	other=0
	for v in XFAIL UNTESTED UNDEFINED TIMEOUT; do other=$((other + ${cnt[$cat $v]:-0})); done
	printf '# %-15s %5d %5d %11d %12d  %d\n' "$cat" "${cnt[$cat PASS]:-0}" "${cnt[$cat FAIL]:-0}" \
		"${cnt[$cat UNRESOLVED]:-0}" "${cnt[$cat UNSUPPORTED]:-0}" "$other"
done
echo "# $counted cases (${#cases[@]} and their repeats in an instance) in $((SECONDS - start)) s;" \
	"$known_n as known-fail lists them (not counted)"
echo "ftracetest: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
