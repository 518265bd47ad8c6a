#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-layers.sh BUILD_DIR - the dependency rules of docs/design.md
# (section 0), checked on the sources and on the built objects.  The
# layers are the table between the "layers:" markers of docs/design.md,
# one folder a line, highest first; nothing else lists them.
#
#   1. The table names every folder of lib/, each with its main header.
#   2. lib/ folders form layers: a file includes headers of its own folder
#      or of lower ones only, and never one of cmds/ or runtime/.
#      runtime/ and common/ use no lib/ header but lib/elf/elf.h (the ELF
#      reader the runtime shares).
#   3. A folder's main header says what it uses ("May use: lib/...", or
#      "every layer below"): every lower folder it includes is named.  A
#      folder's private headers (*_internal.h, *_int.h) are its own.
#   4. No include circle: no header of lib/, common/, runtime/, cmds/,
#      include/ or arch/ includes itself, directly or through others.
#   5. Calls (nm of BUILD_DIR's objects): a function defined in a higher
#      folder is never called from a lower one.
#   6. No call circle: no set of files of lib/, cmds/ (with utrace.c) or
#      runtime/ call each other round in a circle.
#   7. runtime/rt.h lists every runtime file, lowest first, and each one
#      calls only files listed above it.
#   8. Every file the feature map (docs/design.md section 0.1) names exists.
#   9. cmds/: a command includes no header of cmds/ but cmds/cmds.h.
#
# Prints "ok - ..." / "not ok - ..." lines for tests/run-unit.sh.
B=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1

status=0
say() { # say OK|FAIL TEXT
	if [ "$1" = OK ]; then echo "ok - $2"; else echo "not ok - $2"; status=1; fi
}

# 1. the table: "  FOLDER  ROLE...  HEADER" lines; continuation lines are
# indented further and do not start with a folder.
TABLE=$(sed -n '/^<!-- layers: begin/,/^<!-- layers: end/p' docs/design.md |
	grep -E '^  [a-z][a-z0-9_]*/[a-z0-9_/]*  ')
LAYERS=$(echo "$TABLE" | awk '$1 ~ /^lib\// { sub(/^lib\//, "", $1); l = $1 " " l } END { print l }')
bad=
[ "$(echo "$TABLE" | awk 'NR == 1 { print $1 }')" = cmds/ ] || bad="the first line is not cmds/; "
for d in lib/*/; do
	d=${d%/}
	echo "$TABLE" | grep -q "^  $d  " || bad="$bad$d is not in it; "
done
for d in $(echo "$TABLE" | awk '{ print $1 }' | sort | uniq -d); do bad="$bad$d is in it twice; "; done
bad=$bad$(echo "$TABLE" | while read -r dir role; do
	dir=${dir%/}; h=${role##* }
	[ -d "$dir" ] || { echo "$dir does not exist; "; continue; }
	[ -f "$dir/$h" ] || echo "$dir's main header $h does not exist; "
done)
if [ -n "$LAYERS" ] && [ -z "$bad" ]; then
	say OK "the layer table of docs/design.md names every folder of lib/ and its main header"
else say FAIL "the layer table of docs/design.md: ${bad:-it is missing}"; fi

rank() { # rank FOLDER: its position in LAYERS, lowest first; 99 if unknown
	r=0
	for l in $LAYERS; do
		[ "$l" = "$1" ] && { echo $r; return; }
		r=$((r + 1))
	done
	echo 99
}

# 2 and 3. includes, and the main headers' "May use:" lines
for d in lib/*/; do
	d=${d%/}; f=${d#lib/}; r=$(rank "$f")
	[ "$r" -eq 99 ] && continue
	bad=$(grep -HnE '#include "(lib|cmds|runtime)/' "$d"/*.[ch] | while IFS= read -r line; do
		inc=$(echo "$line" | sed -E 's/.*#include "([a-z]+)\/([a-z_]+)\/?.*/\1 \2/')
		set -- $inc
		if [ "$1" != lib ]; then echo "$line"; continue; fi
		[ "$(rank "$2")" -gt "$r" ] && echo "$line"
	done)
	if [ -z "$bad" ]; then say OK "$d includes only its own and lower layers"
	else say FAIL "$d includes a higher layer: $(echo "$bad" | head -3 | tr '\n' ' ')"; fi

	h=$(echo "$TABLE" | awk -v d="$d" '$1 == d { print $NF; exit }')
	may=$(awk '/May use:/ { on = 1 } on { print } on && (/\*\// || /^ \*$/) { exit }' "$d/$h" 2>/dev/null)
	echo "$may" | grep -q 'every layer below' && continue
	missing=
	for u in $(grep -hoE '#include "lib/[a-z_]+/' "$d"/*.[ch] | sed -E 's/.*"lib\/([a-z_]+)\//\1/' | sort -u); do
		[ "$u" = "$f" ] && continue
		echo "$may" | grep -q "lib/$u\b" || missing="$missing lib/$u"
	done
	if [ -n "$may" ] && [ -z "$missing" ]; then say OK "$d/$h's May use line names what $d includes"
	else say FAIL "$d/$h's May use line leaves out:${missing:- (it has none)}"; fi
done
# a folder's private header (*_internal.h, *_int.h) is its own
bad=$(grep -HnE '#include "[a-z]+/([a-z_]+/)?[a-z_]+_int(ernal)?\.h"' lib/*/*.[ch] cmds/*.[ch] runtime/*.[ch] |
	awk -F: '{ f = $1; sub(/\/[^\/]*$/, "", f); i = $3; sub(/^[^"]*"/, "", i); sub(/\/[^\/]*$/, "", i)
		if (f != i) print $1 ": " $3 }')
if [ -z "$bad" ]; then say OK "no file includes another folder's private header"
else say FAIL "private headers included from another folder: $(echo "$bad" | head -3 | tr '\n' ' ')"; fi
bad=$(grep -HnE '#include "(lib|cmds)/' runtime/*.[ch] common/*.h arch/*/* 2>/dev/null |
	grep -v '"lib/elf/elf.h"')
if [ -z "$bad" ]; then say OK "runtime/ and common/ use no tool library but lib/elf/elf.h"
else say FAIL "runtime/ or common/ include the tool's code: $(echo "$bad" | head -3 | tr '\n' ' ')"; fi

circles() { # circles NAME: stdin "from to" lines; prints whether they make a circle
	awk -v name="$1" '
	function dfs(v,   k, w, i) {
		color[v] = 1; path[++depth] = v
		for (k = 1; k <= nout[v] && !found; k++) {
			w = out[v, k]
			if (color[w] == 1) {
				cyc = w; for (i = depth; path[i] != w; i--) cyc = path[i] " -> " cyc
				cyc = w " -> " cyc; found = 1
			} else if (!color[w]) dfs(w)
		}
		color[v] = 2; depth--
	}
	!(($1, $2) in edge) { edge[$1, $2] = 1; out[$1, ++nout[$1]] = $2; node[$1] = 1; node[$2] = 1 }
	END {
		for (v in node) if (!color[v] && !found) dfs(v)
		if (found) { printf "not ok - %s: a circle: %s\n", name, cyc; exit 1 }
		printf "ok - %s: no circle\n", name
	}'
}

# 4. includes as edges "file header": "path" from the top or the file's
# folder, <utrace/...> from include/; other headers are not ours.
grep -HE '^[ 	]*#[ 	]*include[ 	]*["<]' lib/*/*.[ch] common/*.h runtime/*.[ch] cmds/*.[ch] \
	utrace.c include/utrace/*.h arch/*/* 2>/dev/null |
	sed -E 's/^([^:]*):[^"<]*["<]([^">]*)[">].*/\1 \2/' | while read -r file inc; do
	if [ -f "$inc" ]; then echo "$file $inc"
	elif [ -f "${file%/*}/$inc" ]; then echo "$file ${file%/*}/$inc"
	elif [ -f "include/$inc" ]; then echo "$file include/$inc"; fi
done | circles "includes of lib/, common/, runtime/, cmds/, include/, arch/" || status=1

# 5, 6 and 7: calls between objects.  nm -A prints "obj: [addr] T name"
# for definitions and "obj:  U name" for references; edges are "caller
# callee symbol", the objects named as their sources.
edges() { # edges OBJ...
	nm -A "$@" 2>/dev/null | awk -v bdir="$B/" '
	function short(o) { sub(bdir, "", o); sub(/^rt\//, "", o); sub(/\.o$/, ".c", o); return o }
	{
		obj = $1; sub(/:.*/, "", obj)
		if ($2 == "U") ref[obj, $3] = 1
		else if (NF == 3 && $2 ~ /^[TDBRVW]$/) def[$3] = obj
	}
	END {
		for (k in ref) {
			split(k, p, SUBSEP)
			if ((p[2] in def) && def[p[2]] != p[1]) print short(p[1]), short(def[p[2]]), p[2]
		}
	}'
}
objs() { # objs GLOB [SUBDIR]: the built objects of GLOB's sources (no stale object of a moved file)
	for c in $1; do [ -f "$c" ] && [ -f "$B/$2${c%.c}.o" ] && printf '%s\n' "$B/$2${c%.c}.o"; done
}
have() { # have NAME OBJ...: whether the objects were built
	name=$1; shift
	[ $# -gt 0 ] && [ -f "$1" ] && return 0
	say FAIL "$name: no objects in $B (build first)"; return 1
}

LIB_O=$(objs "lib/*/*.c")
if have lib $LIB_O; then
	E=$(edges $LIB_O)
	bad=$(echo "$E" | awk -v layers="$LAYERS" '
	function folder(f) { sub(/^lib\//, "", f); sub(/\/.*/, "", f); return f }
	BEGIN { n = split(layers, L, " "); for (i = 1; i <= n; i++) R[L[i]] = i }
	{
		fo = folder($1); fd = folder($2)
		if ((fo in R) && (fd in R) && R[fd] > R[fo] && !((fo, fd) in seen)) {
			seen[fo, fd] = 1; printf "%s uses %s of %s; ", $1, $3, $2
		}
	}')
	if [ -z "$bad" ]; then say OK "lib: no call goes up a layer"
	else say FAIL "lib calls up a layer: $bad"; fi
	echo "$E" | circles "lib: files that call each other" || status=1
fi

# cmds/ and runtime/ are checked where they were built (not in the
# ASan build of the unit tests, which builds lib/ only)
CMD_O=$(objs "cmds/*.c utrace.c")
if [ -n "$CMD_O" ]; then
	edges $CMD_O |
		circles "cmds and utrace.c: files that call each other" ||
		status=1
fi

RT_O=$(objs "runtime/*.c" rt/)
if [ -n "$RT_O" ]; then
	E=$(edges $RT_O)
	echo "$E" | circles "runtime: files that call each other" || status=1
	ORDER=$(sed -n '/The files, lowest first/,/\*\//p' runtime/rt.h | sed -nE 's/^ \*   ([a-z0-9_]+\.c) .*/\1/p')
	bad=
	for f in runtime/*.c; do
		echo "$ORDER" | grep -qx "${f#runtime/}" || bad="$bad${f#runtime/} is not listed; "
	done
	bad=$bad$(echo "$E" | awk -v order="$ORDER" '
	BEGIN { n = split(order, L, "\n"); for (i = 1; i <= n; i++) P["runtime/" L[i]] = i }
	P[$2] > P[$1] { printf "%s calls %s of %s, listed after it; ", $1, $3, $2 }')
	if [ -z "$bad" ]; then say OK "runtime/rt.h lists the runtime's files in the order they call each other"
	else say FAIL "runtime/rt.h's list of files: $bad"; fi
fi
# 8. the feature map of docs/design.md (section 0.1) names files that
# exist: `dir/file` as written, a bare `file` in the dir of the path
# before it in its row (globs allowed).
bad=$(sed -n '/^### 0.1 Feature map/,/^## /p' docs/design.md | grep '^|' | while IFS= read -r row; do
	dir=.
	for f in $(echo "$row" | grep -oE '`[^` ]+\.(c|h|S|md)`' | tr -d '`'); do
		case $f in */*) dir=${f%/*}; p=$f ;; *) p=$dir/$f ;; esac
		set -- $p
		[ -e "$1" ] || printf '%s ' "$p"
	done
done)
if [ -z "$bad" ]; then say OK "every file the feature map of docs/design.md names exists"
else say FAIL "the feature map of docs/design.md names files that do not exist: $bad"; fi
# 9. commands: no file of cmds/ includes a header of cmds/ but cmds/cmds.h
# (the dispatcher's table): what two commands share lives in lib/.
bad=$(grep -HnE '#include "cmds/' cmds/*.[ch] | grep -v '"cmds/cmds.h"')
if [ -z "$bad" ]; then say OK "cmds/ includes no header of cmds/ but cmds/cmds.h"
else say FAIL "cmds/ includes a header of cmds/: $(echo "$bad" | head -3 | tr '\n' ' ')"; fi
exit $status
