#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/kevents.sh BUILD_DIR - kernel trace events in utrace record
# (-e SYSTEM:EVENT of a tracefs system, -f, -c, -a) and utrace reset,
# against the real kernel.  The records are read back with kdump
# (tests/kernel/kdump.c, built here against libutrace-tool.a), which
# prints each event as the reader gives it, TP_printk text included.
#
#   - `cat /etc/hostname`: its exec (filename=.../cat) and its openat
#     calls, in cat's name; with -f 'filename.ustring ~ "*hostname"' the
#     kernel keeps exactly the one that opened /etc/hostname (O_RDONLY);
#     the kernel clock is x86-tsc when the kernel offers it
#   - sched_switch of a program that sleeps (prev_state=S)
#   - a bad kernel filter: the kernel's error_log text, non-zero exit, the
#     command never runs
#   - scope: the command only; -c its children too; -a everything
#   - interleaving: a program built with `utrace cflags` opens a file in
#     a traced function: the openat record (its filename field is the
#     address the program printed) lies between the function's entry and
#     exit, in time and in the merged order, and utrace report prints it
#     as a comment inside the function, at its depth
#   - the instance is gone after a recording, after SIGINT to the
#     recorder, and after kill -9 followed by `utrace reset` (which keeps
#     the instance of a recorder that is still running, and those of a
#     utrace run by another name: utrace bt as bpftrace)
#   - the global buffer's settings and contents are untouched
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason" when
# not root or the kernel has no tracefs with sched and syscalls events.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
say() { sed 's/^/#   /' "$@"; }

need_built "$U" "$B/libutrace-tool.a"
need_root "kernel events need root (tracefs instances)"
find_tracefs
if [ -z "$TR" ] || [ ! -d "$TR/instances" ]; then
	unsupported "no tracefs with instances"
fi
for e in syscalls/sys_enter_openat sched/sched_switch sched/sched_process_exec; do
	[ -d "$TR/events/$e" ] || unsupported "the kernel has no $e event"
done

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
# a session folder of our own: our `utrace reset` must not end the utrace
# start session of another test or user run of this user
export XDG_RUNTIME_DIR=$T/run
mkdir "$XDG_RUNTIME_DIR"
CC=${CC:-cc}

# a library built with SAN=1 needs the sanitizers' run-time
SAN=
nm "$B/libutrace-tool.a" 2>/dev/null | grep -q __asan_init && SAN=-fsanitize=address,undefined
if ! $CC $SAN -std=gnu11 -O2 -D_GNU_SOURCE -I"$ROOT" -I"$ROOT/include" -o "$T/kdump" \
	"$ROOT/tests/kernel/kdump.c" "$B/libutrace-tool.a" -ltraceevent -ldw -lelf -lz -lstdc++ -ldl \
	-lpthread -lm 2>"$T/cc.err"; then
	notok "build tests/kernel/kdump.c"
	say "$T/cc.err"
	exit 1
fi

# The global buffer: what must be the same after every test.
global_state() {
	local f
	for f in tracing_on current_tracer set_event set_event_pid trace_clock buffer_size_kb \
		options/event-fork events/enable; do
		echo "$f: $(cat "$TR/$f" 2>&1)"
	done
	grep -v '^#' "$TR/trace"
}
global_state >"$T/global.before"

instance_gone() { # instance_gone PID: no instance of recorder PID
	[ ! -d "$TR/instances/utrace-$1" ]
}
started() { # started PID: recorder PID runs its command (set_event_pid is set)
	[ -n "$(cat "$TR/instances/utrace-$1/set_event_pid" 2>/dev/null)" ]
}
# record_bg ARGS...: utrace record ARGS in $T, its stdout/stderr as the
# caller redirects them; RPID = the recorder's pid (so that its instance,
# utrace-RPID, is told from those of other recordings of this user that
# may run meanwhile, killed ones included: theirs are not ours to judge),
# rc = its exit status
record_bg() {
	(cd "$T" && exec "$U" record "$@") &
	RPID=$!
	wait $RPID
	rc=$?
}
wait_for() { # wait_for SECONDS COMMAND...: until COMMAND succeeds
	local i n=$(($1 * 20))
	shift
	for ((i = 0; i < n; i++)); do
		"$@" && return 0
		sleep 0.05
	done
	return 1
}
# Stale instances of an earlier run would confuse the checks.
"$U" reset >/dev/null 2>&1

# ---- cat /etc/hostname ---------------------------------------------------
record_bg -o cat.dat -e syscalls:sys_enter_openat -e sched:sched_process_exec \
	-- cat /etc/hostname >"$T/cat.out" 2>"$T/cat.err"
"$T/kdump" "$T/cat.dat" >"$T/cat.txt" 2>"$T/cat.kerr"
catpid=$(sed -n 's/.*K sched_process_exec: filename=[^ ]*\/cat pid=\([0-9]*\) .*/\1/p' "$T/cat.txt")
if [ $rc -eq 0 ] && cmp -s "$T/cat.out" /etc/hostname && [ -n "$catpid" ] &&
	grep -q "cat-$catpid K sched_process_exec: filename=.*/cat pid=$catpid" "$T/cat.txt"; then
	ok "record -e ... -- cat /etc/hostname: cat's exec of .../cat, under its pid and name"
else
	notok "record -e ... -- cat /etc/hostname: cat's exec of .../cat, under its pid and name"
	say "$T/cat.err" "$T/cat.kerr"
	head -n 20 "$T/cat.txt" | say
fi
n=$(grep -c "cat-$catpid K sys_enter_openat: dfd: 0xffffff9c, filename: 0x[0-9a-f]*, flags: 0x00000000," "$T/cat.txt")
check "cat's openat records: AT_FDCWD, and one O_RDONLY (the file it cats)" \
	test "${n:-0}" -ge 1
if grep -q 'x86-tsc' "$TR/trace_clock"; then
	check "kernel records use the TSC of the user records (trace_clock x86-tsc)" \
		grep -qx '# kernel clock: x86-tsc' "$T/cat.txt"
fi
check "no instance left after the recording" instance_gone $RPID

(cd "$T" && "$U" record -o name.dat -e syscalls:sys_enter_openat \
	-f 'filename.ustring ~ "*hostname"' -- cat /etc/hostname >/dev/null 2>name.err)
rc=$?
"$T/kdump" "$T/name.dat" >"$T/name.txt" 2>&1
if [ $rc -eq 0 ] && [ "$(grep -c ' K sys_enter_openat:' "$T/name.txt")" -eq 1 ] &&
	grep -q '^[0-9]* [0-9]* cat-[0-9]* K sys_enter_openat: dfd: 0xffffff9c, filename: 0x[0-9a-f]*, flags: 0x00000000' "$T/name.txt"; then
	ok "-f 'filename.ustring ~ \"*hostname\"' goes to the kernel: the one openat of /etc/hostname"
else
	notok "-f 'filename.ustring ~ \"*hostname\"' goes to the kernel: the one openat of /etc/hostname"
	say "$T/name.err" "$T/name.txt"
fi

# ---- sched_switch ----------------------------------------------------------
(cd "$T" && "$U" record -o sleep.dat -e sched:sched_switch -- sleep 0.05 2>sleep.err)
rc=$?
"$T/kdump" "$T/sleep.dat" >"$T/sleep.txt" 2>&1
if [ $rc -eq 0 ] &&
	grep -q 'K sched_switch: prev_comm=sleep prev_pid=[0-9]* prev_prio=[0-9]* prev_state=S ==> next_comm=' "$T/sleep.txt"; then
	ok "sched_switch of a program that sleeps: prev_comm=sleep prev_state=S"
else
	notok "sched_switch of a program that sleeps: prev_comm=sleep prev_state=S"
	say "$T/sleep.err"
	head -n 10 "$T/sleep.txt" | say
fi

# ---- a bad kernel filter ------------------------------------------------------
record_bg -o bad.dat -e syscalls:sys_enter_openat -f 'bogus >< 3' \
	-- touch "$T/ran" 2>"$T/bad.err"
if [ $rc -ne 0 ] && [ ! -e "$T/ran" ] && grep -q 'Field not found' "$T/bad.err" &&
	grep -q '^  bogus >< 3$' "$T/bad.err" && grep -q '^ *\^$' "$T/bad.err"; then
	ok "bad kernel filter: the kernel's error_log text and caret, exit $rc, command not run"
else
	notok "bad kernel filter: the kernel's error_log text and caret, exit $rc, command not run"
	say "$T/bad.err"
fi
check "no instance left after a bad filter" instance_gone $RPID

# ---- scope: -c, -a -------------------------------------------------------------
for c in "" -c; do
	(cd "$T" && "$U" record $c -o child.dat -e sched:sched_process_exec \
		-- sh -c 'cat /etc/hostname; true' >/dev/null 2>child.err)
	"$T/kdump" "$T/child.dat" >"$T/child$c.txt" 2>&1
done
if grep -q 'K sched_process_exec: filename=.*/cat ' "$T/child-c.txt" &&
	! grep -q 'K sched_process_exec: filename=.*/cat ' "$T/child.txt" &&
	grep -q 'K sched_process_exec: filename=.*/sh ' "$T/child.txt"; then
	ok "scope: the command's own events; with -c its children's too"
else
	notok "scope: the command's own events; with -c its children's too"
	say "$T/child.txt" "$T/child-c.txt"
fi

for a in "" -a; do
	# the cat starts once the command runs (so the recording does, on a
	# loaded machine too), and ends within the command's second
	rm -f "$T/go"
	(until [ -e "$T/go" ]; do sleep 0.02; done; exec cat /etc/hostname >/dev/null) &
	bg=$!
	(cd "$T" && "$U" record $a -o all.dat -e sched:sched_process_exec -- \
		sh -c 'touch go; exec sleep 1' 2>all.err)
	wait $bg
	"$T/kdump" "$T/all.dat" >"$T/all$a.txt" 2>&1
done
if grep -q "cat-$bg K sched_process_exec: filename=.*/cat pid=$bg" "$T/all-a.txt" &&
	! grep -q 'sched_process_exec: filename=.*/cat ' "$T/all.txt"; then
	ok "-a: the events of every process (a cat started beside the command)"
else
	notok "-a: the events of every process (a cat started beside the command)"
	say "$T/all.txt" "$T/all-a.txt"
fi

# ---- interleaving with the user records -----------------------------------------
if ! $CC -O0 -g $("$U" cflags) "$ROOT/tests/kernel/kopen.c" -o "$T/kopen" 2>"$T/cc.err"; then
	notok "build tests/kernel/kopen.c with utrace cflags"
	say "$T/cc.err"
else
	(cd "$T" && "$U" record -o kopen.dat -e syscalls:sys_enter_openat \
		-f 'filename.ustring ~ "*hostname"' -- ./kopen /etc/hostname >kopen.out 2>kopen.err)
	"$T/kdump" "$T/kopen.dat" >"$T/kopen.txt" 2>&1
	ptr=$(cat "$T/kopen.out")
	# line number and time of the entry, the kernel record, the exit
	read -r le te lk tk lx tx < <(awk -v ptr="$ptr" '
		BEGIN { te = tk = tx = 0 }
		/ > kopen_open$/ { le = NR; te = $1 }
		/ K sys_enter_openat: / && index($0, "filename: " ptr ",") { lk = NR; tk = $1 }
		/ < kopen_open$/ { lx = NR; tx = $1 }
		END { print le + 0, te, lk + 0, tk, lx + 0, tx }' "$T/kopen.txt")
	if [ "$lk" -gt 0 ] && [ "$le" -gt 0 ] && [ "$lx" -gt 0 ] && [ "$le" -lt "$lk" ] &&
		[ "$lk" -lt "$lx" ] && [ "$te" -lt "$tk" ] && [ "$tk" -lt "$tx" ]; then
		ok "the openat record (filename = $ptr) lies between kopen_open's entry and exit"
	else
		notok "the openat record (filename = $ptr) lies between kopen_open's entry and exit"
		say "$T/kopen.err" "$T/kopen.txt"
	fi
	# utrace report: a comment inside kopen_open() { ... }, at its depth,
	# or one deeper, in the open() it calls (--libcall, the default)
	"$U" report -i "$T/kopen.dat" >"$T/kopen.rep" 2>&1
	if awk -v ptr="$ptr" '
		/\|    kopen_open\(\) \{$/ { open = NR }
		/\|      (  )?\/\* sys_enter_openat: / && index($0, "filename: " ptr ",") { ev = NR }
		/\|    \}$/ && open && !shut { shut = NR }
		END { exit !(open && ev > open && (shut == 0 || ev < shut)) }' "$T/kopen.rep"; then
		ok "utrace report: the openat comment inside kopen_open() { }, at its depth or in its open()"
	else
		notok "utrace report: the openat comment inside kopen_open() { }, at its depth or in its open()"
		say "$T/kopen.rep"
	fi
fi

# ---- SIGINT, kill -9 + utrace reset -----------------------------------------------
(cd "$T" && exec "$U" record -o int.dat -e sched:sched_switch -- sleep 2 2>int.err) &
rec=$!
if wait_for 10 started $rec; then
	kill -INT $rec
	if wait_for 10 instance_gone $rec; then
		ok "SIGINT to the recorder: the instance is removed"
	else
		notok "SIGINT to the recorder: the instance is removed"
	fi
	wait $rec
	"$T/kdump" "$T/int.dat" >"$T/int.txt" 2>&1
	check "SIGINT to the recorder: what was recorded is saved" grep -q ' K sched_switch: ' "$T/int.txt"
else
	notok "the recorder creates instances/utrace-$rec"
	wait $rec
	say "$T/int.err"
fi

# Other recordings of this user may run meanwhile (make test runs tiers
# side by side, users record beside it), and their `utrace reset` removes
# our killed recorder's instance as readily as ours does.  An attempt whose
# instance another reset took first proves nothing either way: it is made
# again (a few times), never counted as a failure.
kill_attempt() { # 0: checked; 1: another reset was first; 2: no instance
	local rec rc
	(cd "$T" && exec "$U" record -o kill.dat -e sched:sched_switch -- sleep 1 2>kill.err) &
	rec=$!
	if ! wait_for 10 started $rec; then
		kill -9 $rec 2>/dev/null
		wait $rec 2>/dev/null
		return 2
	fi
	"$U" reset >"$T/reset0.out" 2>&1
	check "utrace reset keeps the instance of a running recorder" \
		test -d "$TR/instances/utrace-$rec"
	kill -9 $rec
	wait $rec 2>/dev/null
	# the held free_buffer closed with it: tracing stopped, buffer freed
	if ! tracing=$(cat "$TR/instances/utrace-$rec/tracing_on" 2>/dev/null); then
		sleep 1 # the released sleep
		return 1
	fi
	check "kill -9 of the recorder: its instance stops tracing (disable_on_free)" \
		test "$tracing" = 0
	"$U" reset >"$T/reset.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && instance_gone $rec &&
		grep -qx "utrace reset: removed instance utrace-$rec" "$T/reset.out"; then
		ok "kill -9 of the recorder, then utrace reset: the instance is removed and named"
	elif [ $rc -eq 0 ] && instance_gone $rec && ! grep -q "utrace-$rec\$" "$T/reset.out"; then
		sleep 1
		return 1 # removed by another reset between our two reads
	else
		notok "kill -9 of the recorder, then utrace reset: the instance is removed and named"
		say "$T/reset.out"
	fi
	sleep 1 # the released sleep
	return 0
}
for attempt in 1 2 3 4 5; do
	kill_attempt
	st=$?
	[ $st -eq 1 ] || break
	echo "# attempt $attempt: another utrace reset removed the killed recorder's instance first"
done
case $st in
1) unsupported "other recordings' utrace reset removed our instance five times running" ;;
2) notok "the recorder creates its instance" && say "$T/kill.err" ;;
esac
# Nothing left of ours; another recorder of this user killed just now may
# leave something, which a reset removes: then the next one says nothing.
reset_says_nothing() {
	"$U" reset >"$T/reset2.out" 2>&1 && grep -qx "utrace reset: nothing to remove" "$T/reset2.out"
}
check "utrace reset with nothing left: says so" until_ok 10 reset_says_nothing

# ---- utrace reset beside a utrace run by another name -----------------------
# utrace bt runs as "bpftrace" (bpftrace's own tests look for that name):
# its instance and its kernel uprobes (group utrace_<pid>) are in use all
# the same, and a `utrace reset` beside it (another test, another user)
# leaves them: tracing on, the probe there, its hits still coming.
cat >"$T/uprog.c" <<'PROG'
__attribute__((noinline)) int uprog_hit(int x) { return x + 1; }
int main(void) { return uprog_hit(1) == 2 ? 0 : 1; }
PROG
ln -s "$U" "$T/bpftrace"
if $CC -O0 -o "$T/uprog" "$T/uprog.c" 2>"$T/uprog.err"; then
	(cd "$T" && __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 exec "$T/bpftrace" \
		-e "uprobe:$T/uprog:uprog_hit { printf(\"hit %d\\n\", arg0); exit(); }" \
		>"$T/bt.out" 2>&1) &
	btpid=$!
	if wait_for 10 grep -q __BPFTRACE_NOTIFY_PROBES_ATTACHED "$T/bt.out"; then
		"$U" reset >"$T/reset3.out" 2>&1
		if [ "$(cat "$TR/instances/utrace-$btpid/tracing_on" 2>&1)" = 1 ] &&
			grep -q "utrace_$btpid/" "$TR/uprobe_events"; then
			ok "utrace reset leaves the instance and uprobes of utrace run as bpftrace"
		else
			notok "utrace reset leaves the instance and uprobes of utrace run as bpftrace"
			say "$T/reset3.out"
		fi
		"$T/uprog"
		check "utrace bt (as bpftrace) sees its uprobe's hit after a utrace reset beside it" \
			wait_for 10 grep -qx "hit 1" "$T/bt.out"
	else
		notok "utrace bt (as bpftrace) attaches its kernel uprobe"
		say "$T/bt.out"
	fi
	kill -INT $btpid 2>/dev/null
	wait $btpid 2>/dev/null
else
	notok "build a program to probe"
	say "$T/uprog.err"
fi

# ---- the global buffer ---------------------------------------------------------------
global_state >"$T/global.after"
if cmp -s "$T/global.before" "$T/global.after"; then
	ok "the global buffer is untouched (settings, set_event, set_event_pid, contents)"
else
	notok "the global buffer is untouched (settings, set_event, set_event_pid, contents)"
	diff "$T/global.before" "$T/global.after" | head -n 20 | say
fi
exit 0
