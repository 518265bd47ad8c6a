# SPDX-License-Identifier: MIT
#
# tests/e2e/t/bt_kernel.sh - utrace bt's uprobes without -c or -p
# (lib/bt/bt_kernel.c): as in bpftrace they apply to every process
# running the binary, also those started after the probes are attached,
# through the kernel's uprobes.  Two runs of tests/e2e/anybin/bt_ustack.c
# started once utrace bt says the probes are attached: every call
# counted in both, the return values summed, printf's lines as the hits
# come, exit() from the second run's done(), -v naming the mechanism,
# and nothing left in uprobe_events or tracefs instances afterwards; then
# ustack there (the kernel's user_stack after each hit, named from the
# live process's maps), frames as the -c run names them.

e2e_once bt-kernel - check_bt_kernel

check_bt_kernel() {
	local d=$OUT/bt-kernel prog bt pid i want got r1 tfs
	tfs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	if [ "$(id -u)" != 0 ] || [ -z "$tfs" ]; then
		echo "ok - bt-kernel system-wide uprobes # SKIP needs root and tracefs"
		return
	fi
	rm -rf "$d"
	mkdir -p "$d"
	prog=$d/bt_ustack
	if ! gcc -O1 -g -fno-omit-frame-pointer -o "$prog" "$E2E/anybin/bt_ustack.c" >"$d/cc.log" 2>&1; then
		nok "bt-kernel builds" "$(head -5 "$d/cc.log")"
		return
	fi
	bt="uprobe:$prog:parse { @[arg0] = count(); printf(\"hit %d %s\\n\", arg0, comm); }
		uretprobe:$prog:level1 { @r = sum(retval); }
		uprobe:$prog:done { @d++; if (@d == 2) { exit(); } }"
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 timeout "$TMO" "$UTRACE" bt -v -e "$bt" \
		>"$d/bt.out" 2>"$d/bt.err" &
	pid=$!
	for i in $(seq 300); do
		grep -q __BPFTRACE_NOTIFY_PROBES_ATTACHED "$d/bt.err" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	"$prog" >"$d/run1.out"
	"$prog" >"$d/run2.out"
	wait "$pid"
	t $? "bt-kernel utrace bt without -c runs, exit() ends it" "$(head -5 "$d/bt.err")"
	t "$(grep -q "^uprobe:$prog:parse: kernel uprobe (p:utrace_[0-9]*/p0 $prog:parse " "$d/bt.err" &&
		grep -q "^uretprobe:$prog:level1: kernel uprobe (r:utrace_" "$d/bt.err"; echo $?)" \
		"bt-kernel -v names the kernel's uprobes as the mechanism" "$(cat "$d/bt.err")"
	# parse(i) for i < 20 from level2, parse(120) from level1: twice each
	want=$({ for i in $(seq 0 19) 120; do echo "@[$i]: 2"; done; } | sort)
	got=$(grep '^@\[' "$d/bt.out" | sort)
	r1=$(cat "$d/run1.out")
	t "$([ "$want" = "$got" ] && grep -qx "@r: $((2 * r1))" "$d/bt.out" &&
		[ "$(grep -c '^hit [0-9]* bt_ustack$' "$d/bt.out")" = 42 ]; echo $?)" \
		"bt-kernel both processes' calls counted, return values summed, printf per hit" \
		"$(grep -v '^hit' "$d/bt.out" | head -30)"
	t "$(! grep -q "utrace_$pid/" "$tfs/uprobe_events" && [ ! -e "$tfs/instances/utrace-$pid" ]; echo $?)" \
		"bt-kernel its uprobes and instance removed at the end" "$(grep utrace_ "$tfs/uprobe_events")"
	check_bt_kernel_ustack "$d" "$prog"
}

# @[ustack] = count() without -c: the process waits in main (for $d/w/stop)
# while utrace bt names its frames; the same maps as under -c.
check_bt_kernel_ustack() {
	local d=$1 prog=$2 pid ppid i bt="uprobe:$2:parse /arg0 > 10/ { @[ustack] = count(); }
		uprobe:$2:done { exit(); }"
	mkdir -p "$d/w"
	touch "$d/w/go" "$d/w/stop"
	timeout "$TMO" "$UTRACE" bt -e "$bt" -c "$prog $d/w" >"$d/us-c.out" 2>&1
	rm -f "$d/w/stop"
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 timeout "$TMO" "$UTRACE" bt -e "$bt" \
		>"$d/us.out" 2>"$d/us.err" &
	pid=$!
	for i in $(seq 300); do
		grep -q __BPFTRACE_NOTIFY_PROBES_ATTACHED "$d/us.err" 2>/dev/null && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	"$prog" "$d/w" >/dev/null &
	ppid=$!
	wait "$pid"
	touch "$d/w/stop"
	wait "$ppid"
	t "$(grep -q '^    level1+[0-9]*$' "$d/us.out" && grep -q '^    __libc_start_call_main+' "$d/us.out" &&
		diff <(grep -v -e '^[0-9]*$' "$d/us-c.out") <(grep -v '^$' "$d/us.out") >/dev/null; echo $?)" \
		"bt-kernel @[ustack] without -c: the frames and counts of the -c run" \
		"$(diff <(grep -v -e '^[0-9]*$' "$d/us-c.out") <(grep -v '^$' "$d/us.out"))" "$(cat "$d/us.err")"
}
