# SPDX-License-Identifier: MIT
#
# tests/e2e/t/flt-function.sh - record -p function
# Must hold: # tracer: function, 5 lines, b <-a, c <-a, a <-main and the
# library call printf <-main (--libcall, the default).

e2e_test "flt-function -p function -- simple"

check_flt_function() {
	local bad=""
	[ "$(fact tracer)" = function ] || bad="$bad header '# tracer: $(fact tracer)';"
	grep -q ' <-' "$REP" || bad="$bad no '<-' in the lines;"
	for pc in "b a" "c a" "a main" "printf main"; do
		set -- $pc
		awk -v f="$1" -v p="$2" '$1 == "fcall" && $2 == f && $3 == p { found = 1 } END { exit !found }' "$FACTS" ||
			bad="$bad no '$1 <-$2' line;"
	done
	[ "$(fact flines)" = 5 ] || bad="$bad $(fact flines) function lines, expected 5;"
	if [ -z "$bad" ]; then ok "$CFG $TEST lines 'func <-parent'"; else nok "$CFG $TEST lines 'func <-parent'" "$bad" "report: $REP"; fi
}
