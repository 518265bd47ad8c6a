# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-events.sh - in-process probes, per configuration: a
# probe event is an event: probes-filter (-f), probes-hist (-R), probes-
# function (-p function with a return probe), list -e -F --probe

e2e_cfg probes-events probes check_probes_events

# a probe event is an event: -f filters it, -R aggregates it, list -e shows it
check_probes_events() {
	local got
	probe_run probes-filter probes --probe 'f:fa add a=$arg1:s32 b=$arg2:s32' -e probes:fa -f 'a >= 1' || return
	got=$(probe_vals fa | tr '\n' ' ')
	t "$([ "$got" = "a=1 b=40 a=2 b=40 " ]; echo $?)" "$CFG probes-filter -f on a probe event" "got: $got"
	probe_run probes-hist probes --probe 'f:fa add a=$arg1:s32 b=$arg2:s32' -v -e probes:fa \
		-R 'hist:keys=a:vals=b' || return
	"$UTRACE" report --hist -i "$RES/trace.dat" >"$RES/hist.txt" 2>&1
	got=$(awk '/^\{ a: / { print $3 ":" $6 ":" $8 }' "$RES/hist.txt" | sort | tr '\n' ' ')
	got=$got$(awk '/Hits:/ { print $2 }' "$RES/hist.txt")
	t "$(grep -q 'fa:' "$RES/rep.txt"; [ $? = 1 ] && [ "$got" = "0:1:40 1:1:40 2:1:40 3" ]; echo $?)" \
		"$CFG probes-hist a hist trigger on a probe event (soft-enabled: no record)" "got: $got"
	# the function tracer on a probed function still names its real caller
	probe_run probes-function probes -p function --probe 'r:ra add r=$retval:s32' || return
	t "$([ "$(grep -cE ': add <-main$' "$RES/rep.txt")" = 3 ] &&
		[ "$(grep -cE ' ra: \(main\+0x[0-9a-f]+ <- add\) r=4[012]$' "$RES/rep.txt")" = 3 ]; echo $?)" \
		"$CFG probes-function -p function with a return probe: add <-main, (main+off <- add)" \
		"$(grep -E 'add|ra:' "$RES/rep.txt" | head -4)"
	got=$("$UTRACE" list -e "$BIN/probes" -F --probe 'p:pv visit n=+8(%di):u32 s=+0(+16(%di)):string' 2>&1)
	t "$([[ $got == *"field:unsigned long __probe_ip;	offset:8;	size:8;	signed:0;"* &&
		$got == *"field:__data_loc char[] s;	offset:20;	size:4;	signed:1;"* &&
		$got == *'print fmt: "(%lx) n=%u s=\"%s\"", REC->__probe_ip, REC->n, __get_str(s)'* ]]; echo $?)" \
		"$CFG probes list -e -F --probe: the kernel's kprobe format" "$got"
}
