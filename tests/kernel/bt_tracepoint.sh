#!/bin/bash
# tests/kernel/bt_tracepoint.sh BUILD_DIR - `utrace bt` with the kernel's
# tracepoints (lib/bt/bt_tracepoint.c): the command's syscalls counted
# by their args fields (an int, a size_t, a char array, a __data_loc
# string through str()) as often as the program made them; comm; str()
# and join() of pointer fields into the process, read at the event by
# BPF (lib/bt/bt_kcap.c: a string, one cut at 63 bytes as bpftrace's,
# an argv whose strings lie side by side on the stack); a
# wildcard; every process's events, with -c too; without -c the action seeing a
# process started once the probes are attached and exit() ending the
# run; -l; a tracepoint that does not exist refused with bpftrace's words;
# Ctrl-C to the process group ends it as bpftrace's, saying nothing more.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_root "kernel tracepoints need root"
find_tracefs
[ -n "$TR" ] && [ -d "$TR/events/syscalls" ] || unsupported "no tracefs syscalls events"
need_built "$U"

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cat >"$T/tpw.c" <<'PROG'
#include <fcntl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	char buf[64] = {0};
	struct timespec ts = {0, 1000000};

	for (int i = 0; i < 7; i++) /* fails: EBADF */
		if (write(977, buf, 40 + i % 2) >= 0)
			return 1;
	if (argc > 3 && argv[1][0] == 'e') { /* open argv[2], exec argv[3] with argv[3...] */
		close(open(argv[2], O_RDONLY));
		execv(argv[3], argv + 3);
		return 1;
	}
	if (argc > 1 && argv[1][0] == 'l') /* loop: a write to fd 978 every ms */
		for (;;) {
			if (write(978, buf, 1) >= 0)
				return 1;
			nanosleep(&ts, NULL);
		}
	if (argc > 1) { /* nanosleep(2) itself: glibc's calls clock_nanosleep */
		syscall(SYS_nanosleep, &ts, NULL);
		if (argv[1][0] == 'w') /* wait: 50 ms more */
			for (int i = 0; i < 50; i++)
				nanosleep(&ts, NULL);
	}
	return 0;
}
PROG
cc -O1 -o "$T/tpw" "$T/tpw.c" || { notok "build the program"; exit 1; }

timeout 60 "$U" bt -e 'tracepoint:syscalls:sys_enter_write /args->fd == 977/ { @w[args->count, comm] = count(); }
	t:syscalls:sys_exit_wr* /comm == "tpw"/ { @r[args->ret] = count(); }' -c "$T/tpw" >"$T/out" 2>"$T/err"
rc=$?
check "tracepoint probes on the command run (rc $rc)" test $rc -eq 0
check "args->count and comm keys: 4 writes of 40 bytes, 3 of 41" \
	eval 'grep -qx "@w\[40, tpw\]: 4" "$T/out" && grep -qx "@w\[41, tpw\]: 3" "$T/out"'
check "a wildcard (sys_exit_wr*) and args->ret: 7 times -EBADF ($(grep -c '^@r' "$T/out") keys)" \
	eval 'grep -qx "@r\[-9\]: 7" "$T/out" && [ "$(grep -c "^@r" "$T/out")" = 1 ]'

# with -c too, every process's events, as bpftrace's (-c names the
# uprobes' processes): a process writing beside the command is seen
cp "$T/tpw" "$T/tpo"
"$T/tpo" loop &
other=$!
timeout 60 "$U" bt -e 'tracepoint:syscalls:sys_enter_write /args->fd == 978/ { @o[comm, pid] = count(); }' \
	-c "$T/tpw wait" >"$T/wide" 2>"$T/wide.err"
rc=$?
kill $other
wait $other 2>/dev/null
check "-c: a tracepoint sees another process's events too, as bpftrace's (rc $rc)" \
	eval '[ $rc = 0 ] && grep -qE "^@o\[tpo, $other\]: [1-9][0-9]*$" "$T/wide"'

# without -c: every process; the program starts once the probes are on
timeout 60 env __BPFTRACE_NOTIFY_PROBES_ATTACHED=1 "$U" bt -e \
	'tracepoint:syscalls:sys_exit_nanosleep /comm == "tpw"/ { printf("slept %d %s\n", args->ret, probe); exit(); }' \
	>"$T/sw" 2>"$T/sw.err" &
bp=$!
for _ in $(seq 300); do grep -q '^__BPFTRACE_NOTIFY_PROBES_ATTACHED$' "$T/sw" && break; sleep 0.1; done
"$T/tpw" sleep
wait $bp
rc=$?
check "without -c: a process started after attaching is seen, exit() ends the run (rc $rc)" \
	eval 'grep -qx "slept 0 tracepoint:syscalls:sys_exit_nanosleep" "$T/sw"'
timeout 60 "$U" bt -e 'tracepoint:sched:sched_process_exec /comm == "tpw"/ { printf("exec %s\n", str(args->filename)); }' \
	-c "$T/tpw" >"$T/dl" 2>&1
check "a __data_loc string through str(args->filename)" grep -qx "exec $T/tpw" "$T/dl"
# a kernel event's pointers into the process, read at the event (BPF)
long=$T/$(printf 'x%.0s' $(seq 90))
touch "$T/opened-file" "$long"
timeout 60 "$U" bt -v -e 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { @[str(args->filename)] = count(); }
	tracepoint:syscalls:sys_enter_execve /comm == "tpw"/ { join(args->argv, ","); }' \
	-c "$T/tpw e $T/opened-file /bin/echo A BC" >"$T/ptr" 2>&1
check "str(args->filename) of sys_enter_openat: the file the program opened" \
	grep -qx "@\[$T/opened-file\]: 1" "$T/ptr"
check "join(args->argv) of sys_enter_execve: the strings side by side on the stack" \
	grep -qx "/bin/echo,A,BC" "$T/ptr"
check "-v: the strings read at the event by a BPF program" \
	grep -q "^utrace bt: strings a kernel event points to read at the event by a BPF program" "$T/ptr"
timeout 60 "$U" bt -e 'tracepoint:syscalls:sys_enter_openat /pid == cpid/ { printf("<%s>\n", str(args->filename)); }' \
	-c "$T/tpw e $long /bin/true" >"$T/cut" 2>&1
check "a string of more than 63 bytes cut at 63, as bpftrace's" grep -qx "<${long:0:63}>" "$T/cut"
"$U" bt -l 'tracepoint:syscalls:sys_enter_wri*' >"$T/list" 2>&1
check "-l tracepoint:SYS:EVENT globs" eval 'grep -qx "tracepoint:syscalls:sys_enter_write" "$T/list" &&
	grep -qx "tracepoint:syscalls:sys_enter_writev" "$T/list"'
"$U" bt -e 't:syscalls:nonsense { exit(); }' >"$T/none" 2>&1
rc=$?
check "a tracepoint that does not exist: bpftrace's error, exit 1 (rc $rc)" \
	eval '[ $rc = 1 ] && grep -q "ERROR: tracepoint not found: syscalls:nonsense" "$T/none"'
# Ctrl-C, as a terminal gives it to the job's whole process group (set -m:
# the job a group of its own, SIGINT not ignored in it), soon after the
# first line or later: the maps and exit 0, as bpftrace, and nothing of
# utrace bt's own waiting process
for wait in 0 0.5; do
	bash -c 'set -m
		timeout 60 "$1" bt -e "tracepoint:syscalls:sys_enter_openat { @ = count(); }" >"$2" 2>&1 &
		p=$!
		for _ in $(seq 100); do grep -q "^Attaching" "$2" && break; sleep 0.05; done
		sleep "$3"; kill -INT -$p; wait $p; echo "rc $?" >>"$2"' sh "$U" "$T/int" "$wait" 2>/dev/null
	check "Ctrl-C to the group ${wait}s after the first line: the map, exit 0, nothing else said ($(tr '\n' '|' <"$T/int"))" \
		eval 'grep -q "^@: [0-9]" "$T/int" && grep -qx "rc 0" "$T/int" &&
		test "$(grep -cv "^Attaching 1 probe...$\|^@: [0-9]*$\|^rc 0$\|^$" "$T/int")" = 0'
done
exit 0
