# SPDX-License-Identifier: MIT
#
# tests/e2e/t/bt_output.sh - utrace bt's output byte for byte as bpftrace
# 0.17 prints it (its output, taken on these programs, is the golden):
# the maps at the end, every map of the program by name, an empty one
# (cleared, or never assigned) as one blank line in text, nothing in
# json; printf's integer conversions read as C's length modifiers read a
# 64-bit value (none: 32 bits; h, hh: narrowed; l, ll, j, z, t: 64), %p
# as C's; lhist's bounds checked with bpftrace's error before anything
# runs (a step of 0 crashed the replay); and bpftrace's signedness: an
# unsigned value compares unsigned, prints as uint64 (a variable, a map,
# a sum, print()), and a comparison with a signed side warns; print()'s
# warning for top and div of a stats() map; with -o FILE, the two blank
# lines before the maps on stdout; print() and clear() handled once the
# action has ended; a strftime() value bare in json, alone or in a tuple.

e2e_once bt-output - check_bt_output

check_bt_output() {
	local d=$OUT/bt-output out
	rm -rf "$d"
	mkdir -p "$d"
	# (a "." after the output: $(...) would drop the blank lines at its end)
	out=$("$UTRACE" bt -e 'BEGIN { @a = 1; @b = 2; @c[1] = 3; clear(@b); clear(@c); exit(); }' 2>&1
		echo .)
	t "$([ "$out" = "$(printf 'Attaching 1 probe...\n\n\n@a: 1\n\n\n.')" ]; echo $?)" \
		"bt-output cleared maps: a blank line each, as bpftrace" "$(echo "$out" | od -c | head -5)"
	out=$("$UTRACE" bt -e 'BEGIN { if (pid == 0) { @x[1] = count(); @h = hist(1); @k = 1; } @y = 2; exit(); }' 2>&1)
	t "$([ "$out" = "$(printf 'Attaching 1 probe...\n\n\n\n\n\n@y: 2')" ]; echo $?)" \
		"bt-output maps never assigned: a blank line each, in name order" "$(echo "$out" | od -c | head -5)"
	out=$("$UTRACE" bt -f json -e 'BEGIN { @a = 1; @b = 2; clear(@b); exit(); }' 2>&1)
	t "$([ "$out" = "$(printf '%s\n\n\n%s' '{"type": "attached_probes", "data": {"probes": 1}}' \
		'{"type": "map", "data": {"@a": 1}}')" ]; echo $?)" \
		"bt-output json: an empty map prints nothing" "$out"
	out=$("$UTRACE" bt -e 'BEGIN { @ = lhist(1, 0, 80, 0); exit(); }' 2>&1)
	t "$([ $? = 1 ] && [ "$(echo "$out" | head -1)" = \
		"stdin:1:13-31: ERROR: lhist() step must be >= 1 (0 provided)" ]; echo $?)" \
		"bt-output lhist step 0: bpftrace's error, exit 1" "$out"
	out=$("$UTRACE" bt -e 'BEGIN { printf("%d %u %x %ld %lu %lx %lld %hhd %hu %c %5d|%-5u|%05x %X %o\n", 5000000000, 5000000000, 5000000000, 5000000000, 5000000000, 5000000000, -5, 300, 70000, 65, -3, 7, 255, 255, 8); printf("%p|%p|%20p|%lp|%hhx|%hhd|%hu|%hd|%zd|%jx|%5.3d|%td|\n", 0, 4096, 255, 4096, 511, 200, 70000, 40000, -7, 255, 7, -1); exit(); }' 2>&1)
	t "$([ "$(echo "$out" | sed -n 2,3p)" = "705032704 705032704 2a05f200 5000000000 5000000000 12a05f200 -5 44 4464 A    -3|7    |000ff FF 10
(nil)|0x1000|                0xff|0x1000|ff|-56|4464|-25536|-7|ff|  007|-1|" ]; echo $?)" \
		"bt-output printf's conversions as C's length modifiers read the value" "$out"
	out=$("$UTRACE" bt -e 'BEGIN { $m = (uint64)-5; @v = $m; @s = sum($m); print($m); @c = $m > 3; @d = $m + 1; @n = sum((int64)$m < 0); @w = -$m; if ($m == -5) { @eq = 1; } @q = $m / 2; exit(); }' 2>&1)
	t "$([ "$out" = "stdin:1:128-130: WARNING: comparison of integers of different signs: 'unsigned int64' and 'int64' can lead to undefined behavior
BEGIN { \$m = (uint64)-5; @v = \$m; @s = sum(\$m); print(\$m); @c = \$m > 3; @d = \$m + 1; @n = sum((int64)\$m < 0); @w = -\$m; if (\$m == -5) { @eq = 1; } @q = \$m / 2; exit(); }
                                                                                                                               ~~
Attaching 1 probe...
18446744073709551611


@c: 1
@d: 18446744073709551612
@eq: 1
@n: 1
@q: 9223372036854775805
@s: 18446744073709551611
@v: 18446744073709551611
@w: 5" ]; echo $?)" "bt-output unsigned integers compare, print and warn as bpftrace's" "$out"
	# print() and clear() act once the action has ended, as bpftrace's
	out=$("$UTRACE" bt -e 'BEGIN { @x = 1; print(@x); @x = 2; print(@x); clear(@x); @x = 3; exit(); }' 2>&1; echo .)
	t "$([ "$out" = "$(printf 'Attaching 1 probe...\n@x: 3\n@x: 3\n\n\n\n.')" ]; echo $?)" \
		"bt-output print() and clear() after the action, as bpftrace's" "$out"
	# -o FILE: the maps go to FILE, the two lines before them to stdout
	out=$("$UTRACE" bt -o "$d/o.txt" -e 'BEGIN { @a = 1; printf("x\n"); exit(); }' 2>/dev/null | od -c)
	t "$([ "$out" = "$(printf '\n\n' | od -c)" ] &&
		[ "$(cat "$d/o.txt"; echo .)" = "$(printf 'Attaching 1 probe...\nx\n@a: 1\n.')" ]; echo $?)" \
		"bt-output -o FILE: the maps' two blank lines on stdout, as bpftrace's" "$out"
	out=$("$UTRACE" bt -e 'BEGIN { @s = stats(1); print(@s, 1, 2); exit(); }' 2>&1; echo .)
	t "$([ "$out" = "stdin:1:24-39: WARNING: print()'s top and div arguments are ignored when used on stats() maps.
BEGIN { @s = stats(1); print(@s, 1, 2); exit(); }
                       ~~~~~~~~~~~~~~~
Attaching 1 probe...
@s: count 1, average 1, total 1



@s: count 1, average 1, total 1

." ]; echo $?)" "bt-output print() of a stats() map with top and div: bpftrace's warning" "$out"
	# strftime()'s value is bpftrace's timestamp: its text bare in json
	out=$("$UTRACE" bt -f json -e 'BEGIN { @a = strftime("42", 0); @c[1] = strftime("%%", 0); print(strftime("7", 0)); exit(); }' 2>&1)
	t "$([ "$out" = '{"type": "attached_probes", "data": {"probes": 1}}
{"type": "value", "data": 7}


{"type": "map", "data": {"@a": 42}}
{"type": "map", "data": {"@c": {"1": %}}}' ]; echo $?)" \
		"bt-output json: a strftime() value bare, as bpftrace's timestamp" "$out"
	# ... in a tuple too, and its element read back by .N
	out=$("$UTRACE" bt -f json -e 'BEGIN { $t = (strftime("42", 0), "x"); @a = (1, $t); print($t.0); exit(); }' 2>&1)
	t "$([ "$out" = '{"type": "attached_probes", "data": {"probes": 1}}
{"type": "value", "data": 42}


{"type": "map", "data": {"@a": [1,[42,"x"]]}}' ]; echo $?)" \
		"bt-output json: a strftime() value in a tuple bare, as bpftrace prints it" "$out"
	out=$("$UTRACE" bt -e 'BEGIN { $t = (strftime("42", 0), 2); $t = ("ab", 3); }' 2>&1)
	t "$(echo "$out" | grep -qF 'Tuple type mismatch: (timestamp,int64) != (string[3],int64).'; echo $?)" \
		"bt-output: a tuple's timestamp element is typed as bpftrace's" "$out"
}
