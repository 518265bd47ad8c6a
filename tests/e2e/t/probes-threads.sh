# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-threads.sh - in-process probes, per configuration:
# probes-threads: entry, middle and return probes of leaf() in threads.c
# fire from every thread

e2e_cfg probes-threads probes check_probes_threads

# threads.c: 4 threads each call leaf() ROUNDS times; probes at its entry,
# in its middle and on its return fire that often, from every thread
check_probes_threads() {
	local rounds threads want bad=
	rounds=$(sed -n 's/^#define ROUNDS \([0-9]*\)/\1/p' "$PROGS/threads.c")
	probe_run probes-threads threads --probe 'f:le leaf x=$arg1:s64' --probe 'r:lr leaf r=$retval:s64' \
		--probe "p:lm leaf+$(probe_offsets leaf "$BIN/threads" | awk '$1 >= 5 { print; exit }') x=%di:s64" || return
	threads=$(grep -c '^thread [0-9]*:' "$RES/u.out")
	want=$((rounds * threads))
	for e in le lr lm; do
		[ "$(grep -c " $e: " "$RES/rep.txt")" = "$want" ] || bad="$bad $e:$(grep -c " $e: " "$RES/rep.txt")"
	done
	t "$([ -z "$bad" ] && [ "$want" -gt 0 ]; echo $?)" "$CFG probes-threads entry, mid and return probes from $threads threads ($want hits each)" "got:$bad"
}
