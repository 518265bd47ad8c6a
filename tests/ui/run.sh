#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/ui/run.sh BUILD_DIR - what a person sees in a browser: the SVG
# flame graph of `utrace dump --flame-graph --svg`, opened in headless
# Chromium, looked at through its screenshots (ImageMagick reads pixels)
# and its DOM after the script ran (--dump-dom):
#
#   - the document is well-formed XML (xmllint) and the script runs
#     (data-ready set, no frame left unplaced)
#   - the frames render: the pixel at the centre of each of the first
#     frames has that frame's fill colour
#   - #zoom=1 (a click on frame 1): frame 1 spans the whole width, its
#     caller is faded, "Reset zoom" shows
#   - #search=NAME: the matching frames turn magenta and "Matched: N%"
#     gives their share
#   - --icicle puts the root at the top
#   - --diff BASE (a second run as the base): well-formed, the script
#     runs, the frames render in their red/blue fills, both runs' times
#     in the tooltips
#
# The program is examples/wordfreq.c built with `utrace cflags` at -O0.
# Prints "ok - ..." / "not ok - ..." per check, then "ui: N passed, N
# failed"; "UNSUPPORTED: reason" (a skip) without Chromium.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
B=${1:-build}
[[ $B = /* ]] || B=$ROOT/$B
U=$B/utrace
export LC_ALL=C
. "$ROOT/tests/ui/lib.sh"
finish() { echo "ui: $skipped skipped"; echo "ui: $passed passed, $failed failed"; exit $((failed > 0)); }

# speedscope reading the folded and Chrome outputs: its lines, counted
# here (a run that fails without saying which check is one failure)
ss=$(bash "$ROOT/tests/ui/speedscope.sh" "$B" 2>&1)
rc=$?
grep -v '^speedscope: ' <<<"$ss"
passed=$((passed + $(grep -c '^ok' <<<"$ss")))
failed=$((failed + $(grep -c '^not ok' <<<"$ss")))
skipped=$((skipped + $(grep -c '^UNSUPPORTED:' <<<"$ss")))
[ "$rc" -eq 0 ] || grep -q '^not ok' <<<"$ss" || notok "tests/ui/speedscope.sh exited with status $rc"

CONVERT=/usr/bin/convert # ImageMagick's, whatever PATH puts first
for need in chromium xmllint "$CONVERT"; do
	if ! command -v "$need" >/dev/null; then
		echo "UNSUPPORTED: $need is not installed (scripts/install-deps.sh test)"
		skipped=$((skipped + 1))
		finish
	fi
done
T=$(mktemp -d) || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$T"' EXIT INT TERM

if ! cc -O0 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/examples" -o "$T/prog" \
	"$ROOT/examples/wordfreq.c" 2>"$T/cc.err" ||
	! (cd "$T" && "$U" record -o t.dat -- ./prog >/dev/null 2>&1) ||
	! (cd "$T" && "$U" record -o base.dat -- ./prog >/dev/null 2>&1); then
	notok "build and record examples/wordfreq.c"
	finish
fi
"$U" dump --flame-graph --svg -i "$T/t.dat" -o "$T/f.svg" 2>"$T/dump.err"
check "dump --flame-graph --svg exits 0" test -s "$T/f.svg"
check "the SVG is well-formed XML" xmllint --noout "$T/f.svg"
"$U" dump --flame-graph --svg --icicle --title 'A & B' -i "$T/t.dat" -o "$T/i.svg"

# W x H of the document, for the browser window
W=$(sed -n 's/^<svg [^>]* width="\([0-9]*\)".*/\1/p' "$T/f.svg")
H=$(sed -n 's/^<svg [^>]* height="\([0-9]*\)".*/\1/p' "$T/f.svg")
# shot URL OUT: a screenshot; dom URL: the DOM after the script
shot() { ui_chrome "$T/profile" "$W,$((H + 200))" --screenshot="$2" "$1" >/dev/null 2>&1; }
dom() { ui_chrome "$T/profile" "$W,$((H + 200))" --dump-dom "$1" 2>/dev/null; }
pixel() { "$CONVERT" "$1" -format "%[pixel:p{$2,$3}]" info: 2>/dev/null | sed 's/^srgb/rgb/'; }

# frame N's rectangle: x y width fill
frame() {
	grep '^<g class="f"' "$2" | sed -n "$(($1 + 1))p" |
		sed 's/.*<rect x="\([^"]*\)" y="\([^"]*\)" width="\([^"]*\)" height="[^"]*" fill="\([^"]*\)".*/\1 \2 \3 \4/'
}
# the pixel at the frame's right margin, 2 px in: its name starts 3 px
# in and leaves the last 3 px free, so no glyph of it is under the pixel
# (the centre was: a name across it gave a blend of fill and text)
centre_is_fill() { # centre_is_fill PNG X Y WIDTH FILL
	local px
	px=$(pixel "$1" "$(awk -v x="$2" -v w="$4" 'BEGIN { printf "%d", x + w - 2 }')" \
		"$(awk -v y="$3" 'BEGIN { printf "%d", y + 7 }')")
	[ "$px" = "$5" ] || { echo "#   pixel $px, fill $5"; return 1; }
}

dom "file://$T/f.svg" >"$T/dom.html"
check "the script ran in Chromium (data-ready)" grep -q 'data-ready="1"' "$T/dom.html"
shot "file://$T/f.svg" "$T/plain.png"
check "Chromium took a screenshot" test -s "$T/plain.png"
nframes=$(grep -c '^<g class="f"' "$T/f.svg")
for i in 0 1 2; do
	[ "$i" -lt "$nframes" ] || break
	read -r x y w fill < <(frame "$i" "$T/f.svg")
	check "frame $i renders in its colour ($fill)" centre_is_fill "$T/plain.png" "$x" "$y" "$w" "$fill"
done

# zoom into frame 1: full width; its caller (frame 0) faded
read -r x1 y1 w1 fill1 < <(frame 1 "$T/f.svg")
shot "file://$T/f.svg#zoom=1" "$T/zoom.png"
right=$(awk -v w="$W" 'BEGIN { printf "%d", w - 20 }')
px=$(pixel "$T/plain.png" "$right" "$(awk -v y="$y1" 'BEGIN { printf "%d", y + 7 }')")
check "before the zoom frame 1 does not reach the right edge" test "$px" != "$fill1"
px=$(pixel "$T/zoom.png" "$right" "$(awk -v y="$y1" 'BEGIN { printf "%d", y + 7 }')")
check "zoom: frame 1 spans the width ($px at x=$right, fill $fill1)" test "$px" = "$fill1"
read -r x0 y0 w0 fill0 < <(frame 0 "$T/f.svg")
px=$(pixel "$T/zoom.png" "$right" "$(awk -v y="$y0" 'BEGIN { printf "%d", y + 7 }')")
check "zoom: its caller is faded ($px, not $fill0)" test -n "$px" -a "$px" != "$fill0"
dom "file://$T/f.svg#zoom=1" >"$T/zdom.html"
check "zoom: Reset zoom shows" grep -q 'id="unzoom"[^>]*opacity: 1' "$T/zdom.html"

# search for frame 1's function
name=$(grep '^<g class="f"' "$T/f.svg" | sed -n 2p | sed 's/.*<title>\([^ ]*\) (.*/\1/')
shot "file://$T/f.svg#search=^$name\$" "$T/search.png"
read -r x1 y1 w1 fill1 < <(frame 1 "$T/f.svg")
check "search: $name turns magenta" centre_is_fill "$T/search.png" "$x1" "$y1" "$w1" "rgb(230,0,230)"
dom "file://$T/f.svg#search=^$name\$" >"$T/sdom.html"
check "search: its share is given (Matched: N%)" grep -q 'id="matched"[^>]*>Matched: [0-9.]*%<' "$T/sdom.html"

# icicle: the root frame at the top, the title escaped
read -r x0 y0 w0 fill0 < <(frame 0 "$T/i.svg")
check "icicle: the root frame is the top row (y=$y0)" test "${y0%.*}" = 50
check "the title is escaped XML" grep -q '>A &amp; B</text>' "$T/i.svg"

# a differential flame graph against a second run
"$U" dump --flame-graph --svg --diff "$T/base.dat" -i "$T/t.dat" -o "$T/d.svg" 2>"$T/diff.err"
check "--diff: the SVG is well-formed XML" xmllint --noout "$T/d.svg"
check "--diff: titled Differential Flame Graph" grep -q '>Differential Flame Graph<' "$T/d.svg"
check "--diff: the tooltips have the base's times" grep -q '; base: [0-9]* calls, ' "$T/d.svg"
dom "file://$T/d.svg" >"$T/ddom.html"
check "--diff: the script ran in Chromium (data-ready)" grep -q 'data-ready="1"' "$T/ddom.html"
shot "file://$T/d.svg" "$T/diff.png"
for i in 0 1 2; do
	[ "$i" -lt "$(grep -c '^<g class="f"' "$T/d.svg")" ] || break
	read -r x y w fill < <(frame "$i" "$T/d.svg")
	check "--diff: frame $i renders in its fill ($fill)" centre_is_fill "$T/diff.png" "$x" "$y" "$w" "$fill"
done
finish
