# SPDX-License-Identifier: MIT
#
# tests/e2e/t/bt_tuple.sh - a tuple's integers as bpftrace 0.17 prints
# them, at an in-process uprobe's hit (runtime/bt_probe.c) on
# tests/e2e/anybin/bt_tuple.c: an unsigned one (argN, pid ... are uint64)
# holding -1 as 18446744073709551615, a signed one as -1, in print(), a
# map's value and -f json; the golden is bpftrace's output of the same
# program, and where bpftrace runs, its output side by side.

e2e_once bt-tuple - check_bt_tuple

check_bt_tuple() {
	local d=$OUT/bt-tuple prog bt
	rm -rf "$d"
	mkdir -p "$d"
	prog=$d/bt_tuple
	if ! gcc -O0 -g -o "$prog" "$E2E/anybin/bt_tuple.c" >"$d/cc.log" 2>&1; then
		nok "bt-tuple builds" "$(head -5 "$d/cc.log")"
		return
	fi
	bt="uprobe:$prog:f { print((1, arg0)); @t[arg1] = (arg0, (int64)arg0, (uint8)arg0, (arg1, \"s\"), -1); }"
	timeout "$TMO" "$UTRACE" bt -e "$bt" -c "$prog" >"$d/bt.out" 2>"$d/bt.err"
	t "$([ $? = 0 ] && [ "$(grep -v '^Attaching' "$d/bt.out")" = "(1, 18446744073709551615)
(1, 3)


@t[5]: (18446744073709551615, -1, 255, (5, s), -1)
@t[-2]: (3, 3, 3, (18446744073709551614, s), -1)" ]; echo $?)" \
		"bt-tuple unsigned elements print as uint64, signed ones signed (bpftrace's text)" \
		"$(cat "$d/bt.out" "$d/bt.err")"
	timeout "$TMO" "$UTRACE" bt -f json -e "$bt" -c "$prog" >"$d/json.out" 2>"$d/json.err"
	t "$([ $? = 0 ] && [ "$(cat "$d/json.out")" = '{"type": "attached_probes", "data": {"probes": 1}}
{"type": "value", "data": [1,18446744073709551615]}
{"type": "value", "data": [1,3]}


{"type": "map", "data": {"@t": {"5": [18446744073709551615,-1,255,[5,"s"],-1], "-2": [3,3,3,[18446744073709551614,"s"],-1]}}}' ]
		echo $?)" \
		"bt-tuple -f json: unsigned elements as uint64 (bpftrace's json)" \
		"$(cat "$d/json.out" "$d/json.err")"
	if ! command -v bpftrace >/dev/null; then
		echo "ok - bt-tuple same output as bpftrace's # SKIP no bpftrace"
		return
	fi
	timeout "$TMO" bpftrace -e "$bt" -c "$prog" >"$d/bp.out" 2>/dev/null
	if ! grep -q '^@t' "$d/bp.out"; then
		echo "ok - bt-tuple same output as bpftrace's # SKIP bpftrace does not run here"
		return
	fi
	t "$(diff "$d/bp.out" "$d/bt.out" >/dev/null; echo $?)" \
		"bt-tuple same output as bpftrace's" "$(diff "$d/bp.out" "$d/bt.out")"
}
