# SPDX-License-Identifier: MIT
#
# tests/e2e/t/read-progress.sh - the progress line of a reading (cmds/
# progress.c), once (test name "read-progress"): report, graph, dump and
# convert on a terminal (a pseudo terminal made by script(1)) whose output
# goes to a file write "utrace CMD: reading FILE: N of N UNIT (P%)" to the
# terminal and erase it at the end ("\r\033[K" last); never into the output
# file, never when the output is the terminal or a pipe, never when
# standard error is not a terminal.

e2e_once read-progress - read_progress_checks

read_progress_checks() {
	local d=$OUT/read-progress c o re esc
	command -v script >/dev/null || return 0
	rm -rf "$d"
	mkdir -p "$d"
	esc=$(printf '\033')
	re='utrace [a-z]+: reading [^ ]*p\.dat: [0-9.]+ [kMGT]B of [0-9.]+ [kMGT]B \([0-9]+%\)'
	"$UTRACE" record -o "$d/p.dat" -- /bin/true >/dev/null 2>"$d/rec.err" </dev/null ||
		nok "read-progress record" "$(cat "$d/rec.err")"
	for c in report graph dump convert; do
		case $c in # the output: a file, standard output's or -o's
		dump | convert) o="-o '$d/$c.out'" ;;
		*) o= ;;
		esac
		rm -f "$d/$c.out"
		script -qec "'$UTRACE' $c -i '$d/p.dat' $o >'$d/out'" /dev/null >"$d/tty" 2>&1
		t "$(grep -qE "$re" "$d/tty"; echo $?)" "read-progress $c: a progress line on the terminal" \
			"$(tr '\r' '\n' <"$d/tty" | head -3)"
		# the record after the last line's (split at \r) begins with the erase
		t "$(awk -v e="$esc" 'BEGIN { RS = "\r" } /^.\[Kutrace [a-z]+: reading / { w = 1; next }
			w { w = index($0, e "[K") != 1 } END { exit w }' "$d/tty"; echo $?)" \
			"read-progress $c: the line erased at the end" "$(cat -v "$d/tty" | head -3)"
		t "$(! cat "$d/out" "$d/$c.out" 2>/dev/null | grep -qE "$re"; echo $?)" \
			"read-progress $c: not in the output"
	done
	# the output on the terminal, or into a pipe: no line
	script -qec "'$UTRACE' report --no-pager -i '$d/p.dat'" /dev/null >"$d/tty" 2>&1
	t "$(! grep -qE "$re" "$d/tty"; echo $?)" "read-progress report on the terminal: no line"
	script -qec "'$UTRACE' report -i '$d/p.dat' | cat >'$d/out'" /dev/null >"$d/tty" 2>&1
	t "$(! grep -qE "$re" "$d/tty"; echo $?)" "read-progress report into a pipe: no line"
	# standard error a file: no line anywhere
	"$UTRACE" report -i "$d/p.dat" >"$d/out" 2>"$d/err"
	t "$(! grep -qE "$re" "$d/err" "$d/out"; echo $?)" "read-progress report, stderr a file: no line"
}
