#!/bin/sh
# SPDX-License-Identifier: MIT
#
# scripts/md2man.sh SRC.md OUT VERSION - one man page from a docs/ page.
# The page's first line "# NAME(SECTION)" becomes go-md2man's title
# block; go-md2man writes the roff; three of its habits are mended here so
# that `MANWIDTH=80 man -l OUT` renders without a warning (tested by
# tests/e2e/t/install.sh):
#  - a wrapped line of text that starts with "." or "'" (".execname" in
#    a list of hist modifiers) is read by troff as a request and dropped;
#    such lines get the zero-width escape \& in front, except the
#    requests go-md2man itself writes;
#  - tables keep each cell on one output line unless it is a tbl text
#    block (T{ ... T}), so a table of long cells is wider than the page;
#    the last column becomes expandable (lx) and every cell longer than 16
#    characters a text block, which tbl wraps (left-aligned: a narrow
#    column cannot be justified);
#  - text is left-aligned (.ad l, as git's pages are): a long path in a
#    line leaves too few spaces to justify it, and troff warns.
set -eu
src=$1 out=$2 version=$3
sed "1s/^# \([-a-z]*\)(\([0-9]\))\$/% \U\1\E \2 \"\" \"utrace $version\" \"utrace manual\"/" "$src" >"$out.md"
go-md2man -in "$out.md" -out "$out.raw"
rm -f "$out.md"
awk '
function cells(line,    n, c, i, s) {
	n = split(line, c, "\t")
	s = ""
	for (i = 1; i <= n; i++) {
		if (c[i] != "T{" && length(c[i]) > 16)
			c[i] = "T{\n.ad l\n" c[i] "\nT}"
		s = s (i > 1 ? "\t" : "") c[i]
	}
	return s
}
/^\.TS/ { tbl = 1; spec = 1; print; next }
/^\.TE/ { tbl = 0; block = 0; print; next }
tbl && spec && /;$/ { print; next }
tbl && spec { sub(/l *\.?$/, "lx" (/\.$/ ? "." : "")); if ($0 ~ /\.$/) spec = 0; print; next }
tbl && block && /^T}/ { block = 0; print "T}" cells(substr($0, 3)); next }
tbl && block { print; next }
tbl { s = cells($0); if (s ~ /T\{$/) block = 1; print s; next }
/^\.nh$/ { print; print ".ad l"; next }
/^[.\047]/ && !/^[.\047](IP|PP|RE|RS|SH|SS|TE|TH|TP|TS|fi|nf|nh|ad|br|sp|in|ti|ft|EX|EE)?( |$)/ {
	print "\\&" $0; next
}
{ print }
' "$out.raw" >"$out"
rm -f "$out.raw"
