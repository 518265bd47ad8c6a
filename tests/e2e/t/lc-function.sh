# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-function.sh - --libcall -p function on libcall.c: library
# calls with their callers

e2e_test "lc-function --libcall -p function -- libcall"

check_lc_function() {
	local bad=""
	[ "$(fact tracer)" = function ] || bad="$bad header '# tracer: $(fact tracer)';"
	# exit's return address lies past main's end (noreturn): not checked
	[ "$(fcount exit "$FACTS")" = 1 ] || bad="$bad exit not recorded once;"
	for pc in "strlen cmp_len" "qsort main" "printf main" "pow main"; do
		set -- $pc
		awk -v f="$1" -v p="$2" '$1 == "fcall" && $2 == f && $3 == p { found = 1 } END { exit !found }' "$FACTS" ||
			bad="$bad no '$1 <-$2' line;"
	done
	if [ -z "$bad" ]; then ok "$CFG $TEST library calls with their callers"; else nok "$CFG $TEST library calls with their callers" "$bad" "report: $REP"; fi
}
