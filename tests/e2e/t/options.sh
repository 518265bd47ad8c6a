# SPDX-License-Identifier: MIT
#
# tests/e2e/t/options.sh - options, --help and man pages in step, once
# (test name "options"): for every command, the options it parses (`utrace
# CMD --complete-options`, the very tables given to getopt_long) are the
# options its --help defines and the options its page's OPTIONS section
# defines, no more and no fewer.  start and stream take record's options
# and say so; graph and dump take report's selection, defined in
# utrace-report(1).

e2e_once options - options_checks

# opts_parsed CMD: the options CMD parses, one a line
opts_parsed() {
	"$UTRACE" "$1" --complete-options | awk '{ print $1 }' | sort -u
}

# opts_help CMD: the options --help defines: its lines that start with
# an option (indented at most six columns), up to the description
opts_help() {
	"$UTRACE" "$1" --help | grep -E '^ {1,6}-' | sed -E 's/^ +//; s/  .*//' |
		grep -oE -- '(^|[ ,/])--?[a-zA-Z][-a-zA-Z0-9_]*' | sed 's/^[ ,/]//' | sort -u
}

# opts_page PAGE: the options the OPTIONS section of PAGE defines: the
# lines a definition (": ...") follows
opts_page() {
	sed -n '/^## OPTIONS/,/^## [A-Z]/p' "$1" |
		awk '/^:/ && prev ~ /^`-/ { print prev } { prev = $0 }' |
		grep -oE -- '(`|, |/)--?[a-zA-Z][-a-zA-Z0-9_]*' | sed -E 's/^(`|, |\/)//' | sort -u
}

options_checks() {
	local c parsed help page extra bad
	for c in $("$UTRACE" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p'); do
		case $c in start | stream) continue ;; esac
		parsed=$(opts_parsed "$c")
		help=$(opts_help "$c")
		page=$(opts_page "$ROOT/docs/utrace-$c.md")
		case $c in graph | dump) extra=$(opts_page "$ROOT/docs/utrace-report.md") ;; *) extra= ;; esac
		bad=$(comm -3 <(echo "$parsed") <(echo "$help") | tr -s ' \t\n' ' ')
		t "$([ -z "${bad// /}" ]; echo $?)" "options $c: --help defines what it parses" \
			"only parsed, then only in --help: $(comm -23 <(echo "$parsed") <(echo "$help") | tr '\n' ' ')/ $(comm -13 <(echo "$parsed") <(echo "$help") | tr '\n' ' ')"
		page=$(printf '%s\n%s\n' "$page" "$(comm -12 <(echo "$parsed") <(echo "$extra"))" | sed '/^$/d' | sort -u)
		bad=$(comm -3 <(echo "$parsed") <(echo "$page") | tr -s ' \t\n' ' ')
		t "$([ -z "${bad// /}" ]; echo $?)" "options $c: utrace-$c(1) defines what it parses" \
			"only parsed, then only in the page: $(comm -23 <(echo "$parsed") <(echo "$page") | tr '\n' ' ')/ $(comm -13 <(echo "$parsed") <(echo "$page") | tr '\n' ' ')"
	done
}
