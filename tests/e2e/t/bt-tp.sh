# SPDX-License-Identifier: MIT
#
# tests/e2e/t/bt-tp.sh - utrace bt's tracepoint: probes on the program's
# own static tracepoints (TRACE_EVENT, lib/bt/bt_tracepoint.c), per
# configuration, on tracepoints.c: tp_value(i, names[i]) for i = 0..4,
# then tp_end(5, sum of 2i = 20); args fields (an int, a __data_loc
# string through str(), a long), comm and probe as bpftrace gives them,
# every hit in order, the program's output untouched.

e2e_cfg bt-tp - check_bt_tp

check_bt_tp() {
	local prog='tracepoint:tp:tp_value { printf("%d %s %s %s\n", args->id, str(args->name), comm, probe); }
		t:tp:tp_e* { @e[args->a] = sum(args->b); }' want
	RES=$OUT/$CFG/bt-tp
	mkdir -p "$RES"
	timeout "$TMO" "$UTRACE" bt -e "$prog" -o "$RES/bt.out" -c "$BIN/tracepoints" \
		>"$RES/prog.out" 2>"$RES/bt.err"
	t $? "$CFG bt-tp runs" "$(head -5 "$RES/bt.err")"
	t "$(grep -qx "sum 20" "$RES/prog.out"; echo $?)" "$CFG bt-tp the program's output unchanged" \
		"$(head -3 "$RES/prog.out")"
	want=$(for i in 0 1 2 3 4; do
		echo "$i $(echo zero one two three four | cut -d' ' -f$((i + 1))) tracepoints tracepoint:tp:tp_value"
	done)
	t "$([ "$want" = "$(grep ' tracepoint:tp:' "$RES/bt.out")" ]; echo $?)" \
		"$CFG bt-tp args->id, str(args->name), comm, probe of each hit, in order" \
		"got: $(grep ' tracepoint:' "$RES/bt.out" | paste -sd '|')"
	t "$(grep -qx '@e\[5\]: 20' "$RES/bt.out"; echo $?)" \
		"$CFG bt-tp a wildcard (tp_e*) and long fields: @e[5]: 20" "$(grep '^@' "$RES/bt.out")"
}
