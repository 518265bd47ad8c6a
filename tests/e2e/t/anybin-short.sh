# SPDX-License-Identifier: MIT
#
# tests/e2e/t/anybin-short.sh - programs built WITHOUT utrace cflags, traced
# by patching their function entries (lib/probes/func_patch.c,
# runtime/func_patch.c): anybin-short (each *-patch configuration)
# tests/e2e/anybin/short.c: 1-4 byte functions (asm, naked) and a loop to
# entry + 2 patched with int3, a loop to the entry refused; same output,
# graph balanced and golden
# The golden: tests/e2e/golden/anybin-short.txt.

e2e_cfg anybin-short anybin check_anybin_short

# tests/e2e/anybin/short.c with this configuration's compiler and -O, no
# flags: its 1-4 byte functions and loop-to-byte-2 one take int3, the one
# whose loop goes back to its entry none; same output, every call in the
# graph (golden anybin-short, the same for every configuration).
check_anybin_short() {
	case $CFG in *-patch) ;; *) return ;; esac
	local bare=$OUT/$CFG/bare cc opt got
	cc=$(config_cc "$CFG")
	opt=$(config_opt "$CFG")
	mkdir -p "$bare"
	if ! $cc $opt -o "$bare/short" "$E2E/anybin/short.c" >"$bare/short.log" 2>&1; then
		nok "$CFG anybin-short builds without flags" "$(head -5 "$bare/short.log")"
		return
	fi
	"$UTRACE" list -f "$bare/short" --why >"$bare/short.why" 2>&1
	got=$(grep -E '^(nothing|zero|ident|count_to|spin_entry|work|main)	' "$bare/short.why" |
		sed 's/	int3: .*/ int3/; s/	[a-z].*/ refused/' | sort | tr '\n' ' ')
	t "$([ "$got" = "count_to int3 ident int3 nothing int3 spin_entry refused zero int3 " ]; echo $?)" \
		"$CFG anybin-short list -f --why: int3 for the short ones, refused for a loop to the entry" \
		"$(cat "$bare/short.why")"
	ANYBIN_ROPTS=--no-libcall anybin_run anybin-short "$bare/short"
	t "$(grep -q "(4 with int3, where a jmp is not safe); 1 left out" "$RES/t.err"; echo $?)" \
		"$CFG anybin-short the recorder counts the int3 entries" "$(head -3 "$RES/t.err")"
	expect_balanced "$CFG anybin-short graph balanced"
	expect_func "$CFG anybin-short 1-byte ret traced" nothing count 3 depth 2
	expect_func "$CFG anybin-short naked 3-byte traced" zero count 3 depth 2
	expect_func "$CFG anybin-short loop to byte 2 traced once" count_to count 1
	# the graph without CPU, task and durations: names, nesting, braces
	grep -v '^#' "$REP" | sed -E 's/^[^|]*\|[^|]*\|  //' >"$RES/masked.txt"
	check_golden_raw anybin-short "$RES/masked.txt"
}
