#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_inter.sh BUILD_DIR - inter-event hist triggers of
# `utrace record --tracefs` in the forms of the kernel's ftracetest
# (trigger/inter-event/), over tests/ftracetest/kprog.c, whose events
# have the kernel's names and fields:
#   string variables   `filenamevar=filename` keeps a string field of one
#                      event (sched_process_exec's __data_loc filename) in
#                      its entry; onmatch() of another event (sched_process
#                      _exit) hands `$filenamevar` to a synthetic event's
#                      `char filename[]`, whose hist shows the string;
#                      in arithmetic, or for a number field, it is the
#                      kernel's "String type can not be an operand"
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"

live_tmp
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/ftracetest/events" -o "$T/kprog" \
	"$ROOT/tests/ftracetest/kprog.c" "$ROOT/tests/ftracetest/events/"*.c ||
	{ notok "build kprog"; exit 1; }
"$U" record -p nop --tracefs "$T/mnt" -o "$T/k.dat" -- "$T/kprog" "$T/stop" >"$T/k.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1
EXEC=events/sched/sched_process_exec
EXIT=events/sched/sched_process_exit

# the filenames the synthetic event's hist holds
synth_names() { sed -n 's/^{ filename: *\([^ ,]*\) *,.*/\1/p' events/synthetic/exec_lat/hist | sort -u; }

# ---- string variables -------------------------------------------------------
echo 'exec_lat u64 lat; char filename[]' >synthetic_events
check "a string field as a variable: filenamevar=filename" \
	sh -c "echo 'hist:key=pid:filenamevar=filename:ts0=common_timestamp.usecs' >$EXEC/trigger"
check "onmatch() hands \$filenamevar to a char[] field" \
	sh -c "echo 'hist:key=pid:lat=common_timestamp.usecs-\$ts0:onmatch(sched.sched_process_exec).exec_lat(\$lat,\$filenamevar)' >$EXIT/trigger"
echo 'hist:keys=filename,lat:sort=filename,lat' >events/synthetic/exec_lat/trigger
has_name() { test "$(synth_names)" = /bin/true; }
check "the synthetic event's hist has the exec'd file, /bin/true ($(synth_names | head -3 | tr '\n' ' '))" \
	until_ok 100 has_name

echo >error_log
bad='hist:key=pid:x=$filenamevar+1'
echo "$bad" >>"$EXIT/trigger" 2>"$T/e1"
check "\$filenamevar in arithmetic fails (EINVAL)" grep -q 'Invalid argument' "$T/e1"
check "... with the kernel's error_log text" grep -q 'error: String type can not be an operand' error_log
echo 'num_lat u64 lat; u64 n' >synthetic_events
echo 'hist:key=pid:lat=common_timestamp.usecs-$ts0:onmatch(sched.sched_process_exec).num_lat($lat,$filenamevar)' \
	>>"$EXIT/trigger" 2>"$T/e2"
check "\$filenamevar for a number field fails (EINVAL)" grep -q 'Invalid argument' "$T/e2"

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
exit 0
