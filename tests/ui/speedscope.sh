#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/ui/speedscope.sh BUILD_DIR - utrace's folded stacks (`dump
# --flame-graph`) and Chrome JSON (`dump --chrome`) as a real consumer
# reads them: speedscope (npm's, a static web app) in headless Chromium.
# tests/ui/run.sh runs it; it also runs alone.
#
# examples/wordfreq.c is recorded with function_graph, both files are
# written and served with speedscope over `python3 -m http.server` on
# 127.0.0.1 (speedscope fetches #profileURL=... only from an http:
# page), and each is opened in speedscope's Sandwich view (#view=sandwich:
# a table of functions in the DOM, where the other views draw on a
# canvas).  The DOM after the load (--dump-dom) must show:
#
#   - the import worked: the title names the file; no error, no alert
#     and no console warning (speedscope warns about events it cannot
#     pair and skips them)
#   - folded: every function of the stacks, the root's total the sum of
#     the weights
#   - Chrome: the thread's name, and every function with the same total
#     and self times as the folded file gives (the same recording)
#
# and, so that the checks can fail, folded stacks without their weights
# and a truncated Chrome file are refused, and a Chrome file whose "E"
# events lost their names (speedscope then leaves calls open) gives
# different times.  The page is speedscope's index.html with
# one script ahead of speedscope's: it writes the first alert() and
# console.warn() into attributes of <html>, since headless Chromium would
# wait forever on the alert and --dump-dom shows no console.
#
# Prints "ok - ..." / "not ok - ..." per check, then "speedscope: N
# passed, N failed"; "UNSUPPORTED: reason" (a skip) without speedscope,
# Chromium or python3.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B
U=$B/utrace
export LC_ALL=C
. "$ROOT/tests/ui/lib.sh"
finish() { echo "speedscope: $passed passed, $failed failed"; exit $((failed > 0)); }
unsupported() { echo "UNSUPPORTED: $*"; finish; }

SS=
for d in "${SPEEDSCOPE_DIR:-}" "$(npm root -g 2>/dev/null)/speedscope/dist/release" \
	/usr/local/lib/node_modules/speedscope/dist/release /usr/lib/node_modules/speedscope/dist/release; do
	[ -n "$d" ] && [ -f "$d/index.html" ] && SS=$d && break
done
[ -n "$SS" ] || unsupported "speedscope is not installed (npm install -g speedscope)"
for need in chromium python3; do
	command -v "$need" >/dev/null || unsupported "$need is not installed (scripts/install-deps.sh test)"
done
T=$(mktemp -d) || exit 1
server=
trap '[ -z "$server" ] || kill "$server" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT INT TERM

if ! cc -O0 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/examples" -o "$T/prog" \
	"$ROOT/examples/wordfreq.c" 2>"$T/cc.err" ||
	! (cd "$T" && "$U" record -p function_graph -o t.dat -- ./prog >/dev/null 2>&1); then
	notok "build and record examples/wordfreq.c"
	finish
fi
mkdir "$T/www"
"$U" dump --flame-graph -i "$T/t.dat" -o "$T/www/wordfreq.folded" 2>"$T/dump.err"
check "dump --flame-graph exits 0" test -s "$T/www/wordfreq.folded"
"$U" dump --chrome -i "$T/t.dat" -o "$T/www/wordfreq.json" 2>>"$T/dump.err"
check "dump --chrome exits 0" test -s "$T/www/wordfreq.json"
# the failures the checks must see: stacks without weights; cut in the
# middle of an event; "E"s without their names, as utrace wrote them
# before speedscope was tried
head -c "$(($(wc -c <"$T/www/wordfreq.json") / 2))" "$T/www/wordfreq.json" >"$T/www/cut.json"
sed 's/\("ph":"E",[^}]*\),"name":"[^"]*"}/\1}/' "$T/www/wordfreq.json" >"$T/www/unnamed.json"
sed 's/ [0-9]*$//' "$T/www/wordfreq.folded" >"$T/www/weightless.folded"

# speedscope's files, and index.html with the alert and warning catcher
ln -s "$SS"/* "$T/www/"
sed 's|^\( *\)<script src=|\1<script>\
var note = function (k, m) { var e = document.documentElement; if (!e.hasAttribute(k)) e.setAttribute(k, String(m)); };\
window.alert = function (m) { note("data-alert", m); };\
var warn = console.warn; console.warn = function () { note("data-warning", [].join.call(arguments, " ")); return warn.apply(console, arguments); };\
</script>\
\1<script src=|' "$SS/index.html" >"$T/www/check.html"
check "the check page has the catcher ahead of speedscope's script" \
	awk '/^var warn = console.warn/ { c = NR } /<script src="speedscope/ { s = NR }
		END { exit !(c && s > c) }' "$T/www/check.html"

# http.server on a port the kernel picks; it prints it when listening
python3 -u -m http.server --bind 127.0.0.1 --directory "$T/www" 0 >"$T/http.log" 2>&1 &
server=$!
port=
for _ in $(seq 50); do
	port=$(sed -n 's/^Serving HTTP on .* port \([0-9]*\) .*/\1/p' "$T/http.log")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { notok "python3 -m http.server listens on 127.0.0.1"; finish; }

# load FILE: speedscope's DOM after it loaded FILE, into $T/FILE.html.
# The table comes a frame after the import (which sets the title), and
# on a loaded machine the dump was once taken between the two: then the
# page is loaded again, up to 3 times.
load() {
	local i
	for i in 1 2 3; do
		ui_chrome "$T/profile" 1200,2000 --virtual-time-budget=10000 --dump-dom \
			"http://127.0.0.1:$port/check.html#profileURL=$1&view=sandwich" >"$T/$1.html" 2>/dev/null
		grep -q "<title>$1 - speedscope</title>" "$T/$1.html" && ! grep -q '%)<' "$T/$1.html" ||
			return 0
	done
}
# imported FILE: speedscope shows FILE's profile, with no error, alert or warning
imported() {
	local h=$T/$1.html
	grep -q "<title>$1 - speedscope</title>" "$h" || { echo "#   $1: not loaded"; return 1; }
	! grep -o 'data-alert="[^"]*"\|data-warning="[^"]*"\|Something went wrong' "$h" | sed 's/^/#   /' | grep .
}
# rows FILE: the Sandwich table, "TOTAL<tab>SELF<tab>NAME" a row, sorted
rows() {
	sed 's/<tr/\n<tr/g' "$T/$1.html" | grep '^<tr' | sed 's|</tr>.*||; s/<[^>]*>/|/g' |
		awk -F'|' '{ n = 0; for (i = 1; i <= NF; i++) if ($i != "") f[++n] = $i
			if (n == 3 && f[1] ~ /%\)$/) print f[1] "\t" f[2] "\t" f[3] }' | sort -t$'\t' -k3
}
# times FILE: "NAME<tab>TOTAL<tab>SELF" in ns from speedscope's figures
# ("37,456" for the unitless folded weights, "16.30µs" for Chrome's)
times() {
	rows "$1" | awk -F'\t' 'function ns(s, m) {
		sub(/ \(.*/, "", s); gsub(/,/, "", s); m = 1
		if (s ~ /ns$/) sub(/ns$/, "", s)
		else if (s ~ /µs$/) { sub(/µs$/, "", s); m = 1e3 }
		else if (s ~ /ms$/) { sub(/ms$/, "", s); m = 1e6 }
		else if (s ~ /s$/) { sub(/s$/, "", s); m = 1e9 }
		return s * m }
		{ print $3 "\t" ns($1) "\t" ns($2) }'
}
# same_times A B: the same functions, totals and self times within 0.5%
# (speedscope rounds times to 4 digits) and 1 ns
same_times() {
	local d
	d=$(join -t$'\t' -a1 -a2 -e- -o0,1.2,1.3,2.2,2.3 <(times "$1") <(times "$2") |
		awk -F'\t' 'function far(a, b) {
				return a == "-" || b == "-" || a - b > 1 + b / 200 || b - a > 1 + a / 200 }
			far($2, $4) || far($3, $5) { print $1 ": " $2 " " $3 " / " $4 " " $5 }')
	[ -z "$d" ] || { echo "$d" | sed 's/^/#   total self of A \/ B: /'; return 1; }
	[ -n "$(times "$1")" ]
}

load wordfreq.folded
check "folded: speedscope imports it" imported wordfreq.folded
want=$(tr ';' '\n' <"$T/www/wordfreq.folded" | sed 's/ [0-9]*$//' | sort -u)
got=$(rows wordfreq.folded | cut -f3 | sort -u)
check "folded: speedscope lists every function of the stacks ($(echo $want))" \
	test "$got" = "$want"
sum=$(awk '{ s += $NF } END { print s }' "$T/www/wordfreq.folded")
main=$(rows wordfreq.folded | awk -F'\t' '$3 == "main" { sub(/ .*/, "", $1); gsub(/,/, "", $1); print $1 }')
check "folded: main's total is the sum of the weights ($main, $sum)" test "$main" = "$sum"

load wordfreq.json
check "Chrome: speedscope imports it" imported wordfreq.json
check "Chrome: the thread is named after the program" grep -q '>prog (pid [0-9]*), prog (tid [0-9]*)<' \
	"$T/wordfreq.json.html"
check "Chrome: the functions' total and self times are the folded file's" \
	same_times wordfreq.json wordfreq.folded

load weightless.folded
check "folded stacks without their weights are refused" eval '! imported weightless.folded >/dev/null'
load cut.json
check "a Chrome file cut in half is refused" eval '! imported cut.json >/dev/null'
load unnamed.json
check "with unnamed \"E\" events the times differ (the check can fail)" \
	eval '! same_times unnamed.json wordfreq.folded >/dev/null'
finish
