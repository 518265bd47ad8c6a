# SPDX-License-Identifier: MIT
#
# tests/e2e/t/bt_dwarf.sh - utrace bt's uprobe arguments by name through
# DWARF (lib/bt/bt_dwarf.c) on tests/e2e/anybin/bt_dwarf.c: `-lv` lists
# each parameter with its type as bpftrace does, args->NAME reads a
# char, a signed short and an unsigned char as wide and as signed as
# they are declared (printf and map keys), args->foo1->a and ->b (a char
# array: a string) a struct pointer's members, and a name the function does
# not have is bpftrace's error, caret included; against bpftrace's own
# output where it runs.

e2e_once bt-dwarf - check_bt_dwarf

check_bt_dwarf() {
	local d=$OUT/bt-dwarf prog bt want
	rm -rf "$d"
	mkdir -p "$d"
	prog=$d/bt_dwarf
	if ! gcc -O0 -g -o "$prog" "$E2E/anybin/bt_dwarf.c" >"$d/cc.log" 2>&1; then
		nok "bt-dwarf builds" "$(head -5 "$d/cc.log")"
		return
	fi
	"$UTRACE" bt -lv "uprobe:$prog:f" >"$d/list.out" 2>&1
	want=$(printf '%s\n' "uprobe:$prog:f" "    char c" "    int* n" "    struct Foo* foo1" \
		"    short int s" "    unsigned char u")
	t "$([ "$want" = "$(cat "$d/list.out")" ]; echo $?)" \
		"bt-dwarf -lv lists the parameters and their types" "$(cat "$d/list.out")"
	bt="uprobe:$prog:f { printf(\"%c %d %d %d %s\\n\", args->c, args->s, args->u, args->foo1->a, args->foo1->b); @c[args->c] = count(); @u[args.u] = count(); }"
	timeout "$TMO" "$UTRACE" bt -e "$bt" -c "$prog" >"$d/bt.out" 2>"$d/bt.err"
	t "$([ $? = 0 ] && grep -qx 'x -5 200 123 hello' "$d/bt.out" && grep -qx '@c\[120\]: 1' "$d/bt.out" &&
		grep -qx '@u\[200\]: 1' "$d/bt.out"; echo $?)" \
		"bt-dwarf args->c, args->s, args->u as declared (char, short -5, unsigned char 200); members foo1->a, foo1->b (a string)" \
		"$(cat "$d/bt.out" "$d/bt.err")"
	timeout "$TMO" "$UTRACE" bt -e "uprobe:$prog:f { printf(\"%d\\n\", args->nosuch); }" \
		-c "$prog" >"$d/bad.out" 2>"$d/bad.err"
	t "$([ $? = 1 ] && grep -q "ERROR: Can't find function parameter nosuch" "$d/bad.err"; echo $?)" \
		"bt-dwarf a parameter the function does not have: bpftrace's error" "$(cat "$d/bad.err")"
	if ! command -v bpftrace >/dev/null; then
		echo "ok - bt-dwarf same output as bpftrace's # SKIP no bpftrace"
		return
	fi
	bpftrace -lv "uprobe:$prog:f" >"$d/bp-list.out" 2>/dev/null
	timeout "$TMO" bpftrace -e "uprobe:$prog:f { printf(\"%c %d %d %d %s\\n\", args->c, args->s, args->u, args->foo1->a, args->foo1->b); }" \
		-c "$prog" >"$d/bp.out" 2>/dev/null
	timeout "$TMO" bpftrace -e "uprobe:$prog:f { printf(\"%d\\n\", args->nosuch); }" \
		-c "$prog" >/dev/null 2>"$d/bp-bad.err"
	if ! grep -q '^x ' "$d/bp.out"; then
		echo "ok - bt-dwarf same output as bpftrace's # SKIP bpftrace does not run here"
		return
	fi
	t "$(cmp -s "$d/bp-list.out" "$d/list.out" && grep -qx "$(grep '^x ' "$d/bp.out")" "$d/bt.out" &&
		diff <(grep -v RLIMIT "$d/bp-bad.err") "$d/bad.err" >/dev/null; echo $?)" \
		"bt-dwarf same -lv, printf and error as bpftrace's" \
		"$(diff "$d/bp-list.out" "$d/list.out")" "$(cat "$d/bp.out")" \
		"$(diff <(grep -v RLIMIT "$d/bp-bad.err") "$d/bad.err")"
}
