# SPDX-License-Identifier: MIT
#
# tests/e2e/t/bt_walk.sh - utrace bt reading the traced program's memory
# at addresses computed at run time, at an in-process uprobe's hit
# (runtime/bt_probe.c), on tests/e2e/anybin/bt_walk.c: a while loop walks
# a linked list ($n = $n->next) in an action that prints (replayed in the
# tool from what the hit read), the second list ending in a pointer into
# nothing, whose reads give 0 (and under -kk bpftrace's warning for each),
# and an aggregation reading an element at an index the hit computes, run at
# the hit; against bpftrace's own output where it runs.

e2e_once bt-walk - check_bt_walk

check_bt_walk() {
	local d=$OUT/bt-walk prog bt agg
	rm -rf "$d"
	mkdir -p "$d"
	prog=$d/bt_walk
	if ! gcc -O0 -g -o "$prog" "$E2E/anybin/bt_walk.c" >"$d/cc.log" 2>&1; then
		nok "bt-walk builds" "$(head -5 "$d/cc.log")"
		return
	fi
	printf '%s\n' 'struct node { struct node *next; long val; }' \
		"uprobe:$prog:walk { \$n = (struct node *)arg0; \$s = 0; \$i = 0;" \
		'  while ($n != 0 && $i < 20) { $s += $n->val; $n = $n->next; $i++; }' \
		'  printf("from %d: %d nodes, sum %d\n", arg1, $i, $s); }' >"$d/walk.bt"
	timeout "$TMO" "$UTRACE" bt -v "$d/walk.bt" -c "$prog" >"$d/bt.out" 2>"$d/bt.err"
	t "$([ $? = 0 ] && grep -qx 'from 0: 6 nodes, sum 61' "$d/bt.out" &&
		grep -qx 'from 3: 4 nodes, sum 53' "$d/bt.out" && ! grep -q WARNING "$d/bt.err"; echo $?)" \
		"bt-walk a while loop walks a list at the hit; a pointer into nothing reads 0" \
		"$(cat "$d/bt.out" "$d/bt.err")"
	t "$(grep -q 'in-process probe .*(the memory it reads read at the hit)' "$d/bt.err"; echo $?)" \
		"bt-walk -v: an in-process probe, its reads made at the hit" "$(cat "$d/bt.err")"
	timeout "$TMO" "$UTRACE" bt -kk "$d/walk.bt" -c "$prog" >"$d/kk.out" 2>"$d/kk.err"
	t "$([ $? = 0 ] && grep -qx 'from 3: 4 nodes, sum 53' "$d/kk.out" &&
		[ "$(grep -c WARNING "$d/kk.out")" = 2 ] && ! grep -q WARNING "$d/kk.err" &&
		grep -qx "$d/walk.bt:3:38-45: WARNING: Failed to probe_read_user: Bad address (-14)" "$d/kk.out" &&
		grep -qx "$d/walk.bt:3:52-60: WARNING: Failed to probe_read_user: Bad address (-14)" "$d/kk.out"
		echo $?)" \
		"bt-walk -kk: each faulting read's warning on the output, bpftrace's text" \
		"$(cat "$d/kk.out" "$d/kk.err")"
	agg="struct node { struct node *next; long val; } uprobe:$prog:walk { @v[((struct node *)arg0 + arg1 / 3)->val] = count(); }"
	timeout "$TMO" "$UTRACE" bt -v -e "$agg" -c "$prog" >"$d/agg.out" 2>"$d/agg.err"
	t "$([ $? = 0 ] && grep -qx '@v\[1\]: 1' "$d/agg.out" && grep -qx '@v\[17\]: 1' "$d/agg.out" &&
		grep -q 'its action runs at the hit' "$d/agg.err"; echo $?)" \
		"bt-walk an aggregation reads at an index the hit computes, at the hit (nodes[0], nodes[3 + 1])" \
		"$(cat "$d/agg.out" "$d/agg.err")"
	# str() at a run-time address: across two pages, then into an unmapped one
	str="uprobe:$prog:name { printf(\"<%s|%s>\\n\", str(arg0 + arg1), str(arg0 + arg1, 3)); }"
	timeout "$TMO" "$UTRACE" bt -kk -e "$str" -c "$prog" >"$d/str.out" 2>"$d/str.err"
	t "$([ $? = 0 ] && grep -qx '<hello world|hel>' "$d/str.out" && grep -qx '<|>' "$d/str.out" &&
		[ "$(grep -c 'WARNING: Failed to probe_read_user_str: Bad address (-14)' "$d/str.out")" = 2 ]
		echo $?)" \
		"bt-walk str() across two pages reads whole; into an unmapped page \"\" and -kk's warning" \
		"$(cat "$d/str.out" "$d/str.err")"
	if ! command -v bpftrace >/dev/null; then
		echo "ok - bt-walk same output as bpftrace's # SKIP no bpftrace"
		return
	fi
	timeout "$TMO" bpftrace -kk "$d/walk.bt" -c "$prog" >"$d/bp.out" 2>"$d/bp.err"
	if ! grep -q '^from 0' "$d/bp.out"; then
		echo "ok - bt-walk same output as bpftrace's # SKIP bpftrace does not run here"
		return
	fi
	# (the program's own output, 3, is on the same stdout as bpftrace's)
	t "$(diff <(grep -vx 3 "$d/bp.out") <(grep -vx 3 "$d/kk.out") >/dev/null; echo $?)" \
		"bt-walk same printf and -kk warnings as bpftrace's" \
		"$(diff <(grep -vx 3 "$d/bp.out") <(grep -vx 3 "$d/kk.out"))"
	timeout "$TMO" bpftrace -kk -e "$str" -c "$prog" >"$d/bp-str.out" 2>/dev/null
	t "$(diff <(grep -vx 3 "$d/bp-str.out") <(grep -vx 3 "$d/str.out") >/dev/null; echo $?)" \
		"bt-walk same str() output and warnings as bpftrace's" \
		"$(diff <(grep -vx 3 "$d/bp-str.out") <(grep -vx 3 "$d/str.out"))"
}
