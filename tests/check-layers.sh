#!/bin/sh
# SPDX-License-Identifier: MIT
#
# check-layers.sh BUILD_DIR - the dependency rules of docs/design.md
# ("Layers"), checked on the sources and on the built objects:
#
#   1. lib/ folders form layers, lowest first (LAYERS below): a file
#      includes headers of its own folder or of lower ones only, and never
#      one of cmds/ or runtime/.  runtime/ and common/ use no lib/ header
#      but lib/elf/elf.h (the ELF reader the runtime shares).
#   2. The same, for calls: a function defined in a higher folder is never
#      called from a lower one (nm of BUILD_DIR's objects).
#   3. No circles: no set of files of lib/ or runtime/ call each other
#      round in a circle (a subsystem's parts depend one way).
#   4. cmds/: a command includes no header of cmds/ but cmds/cmds.h.
#
# Prints "ok - ..." / "not ok - ..." lines for tests/run-unit.sh.
B=${1:-build}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LAYERS="base elf attach events tracefile kernel probes perf hist live record sample report export session"
cd "$ROOT" || exit 1

rank() { # rank FOLDER: its position in LAYERS, 99 if unknown
	r=0
	for l in $LAYERS; do
		[ "$l" = "$1" ] && { echo $r; return; }
		r=$((r + 1))
	done
	echo 99
}

status=0
say() { # say OK|FAIL TEXT
	if [ "$1" = OK ]; then echo "ok - $2"; else echo "not ok - $2"; status=1; fi
}

# 1. includes
for d in lib/*/; do
	d=${d%/}; f=${d#lib/}; r=$(rank "$f")
	[ "$r" -eq 99 ] && { say FAIL "$d: a folder not in the layer list of tests/check-layers.sh"; continue; }
	bad=$(grep -HnE '#include "(lib|cmds|runtime)/' "$d"/*.[ch] | while IFS= read -r line; do
		inc=$(echo "$line" | sed -E 's/.*#include "([a-z]+)\/([a-z_]+)\/?.*/\1 \2/')
		set -- $inc
		if [ "$1" != lib ]; then echo "$line"; continue; fi
		[ "$(rank "$2")" -gt "$r" ] && echo "$line"
	done)
	if [ -z "$bad" ]; then say OK "$d includes only its own and lower layers"
	else say FAIL "$d includes a higher layer: $(echo "$bad" | head -3 | tr '\n' ' ')"; fi
done
bad=$(grep -HnE '#include "(lib|cmds)/' runtime/*.[ch] common/*.h arch/*/* 2>/dev/null |
	grep -v '"lib/elf/elf.h"')
if [ -z "$bad" ]; then say OK "runtime/ and common/ use no tool library but lib/elf/elf.h"
else say FAIL "runtime/ or common/ include the tool's code: $(echo "$bad" | head -3 | tr '\n' ' ')"; fi

# 2 and 3: calls between objects.  nm -A prints "obj: [addr] T name" for
# definitions and "obj:  U name" for references; edges are caller -> callee
# file.  The awk script checks the ranks and looks for circles (DFS).
check_objs() { # check_objs NAME OBJ...
	name=$1; shift
	[ $# -gt 0 ] && [ -f "$1" ] || { say FAIL "$name: no objects in $B (build first)"; return; }
	nm -A "$@" 2>/dev/null | awk -v layers="$LAYERS" -v name="$name" -v bdir="$B/" '
	function folder(o,   p) { p = o; sub(bdir, "", p); sub(/^rt\//, "", p); sub(/\/[^\/]*$/, "", p); return p }
	function short(o,   p) { p = o; sub(bdir, "", p); sub(/^rt\//, "", p); sub(/\.o$/, ".c", p); return p }
	function dfs(v,   w, k) {
		color[v] = 1; path[++depth] = v
		for (k = 1; k <= nout[v]; k++) {
			w = out[v, k]
			if (color[w] == 1) {
				cyc = w; for (i = depth; i >= 1 && path[i] != w; i--) cyc = path[i] " -> " cyc
				cyc = w " -> " cyc; found = 1
			} else if (!color[w]) dfs(w)
			if (found) return
		}
		color[v] = 2; depth--
	}
	BEGIN { n = split(layers, L, " "); for (i = 1; i <= n; i++) R["lib/" L[i]] = i }
	{
		obj = $1; sub(/:.*/, "", obj)
		if ($2 == "U") ref[obj, $3] = 1
		else if (NF == 3 && $2 ~ /^[TDBRVW]$/) def[$3] = obj
		objs[obj] = 1
	}
	END {
		for (k in ref) {
			split(k, p, SUBSEP); o = p[1]; s = p[2]
			if (!(s in def) || def[s] == o) continue
			if (!((o, def[s]) in edge)) { edge[o, def[s]] = 1; out[o, ++nout[o]] = def[s] }
			fo = folder(o); fd = folder(def[s])
			if ((fo in R) && (fd in R) && R[fd] > R[fo] && !(fo SUBSEP fd in upbad)) {
				upbad[fo, fd] = 1
				printf "not ok - %s calls up a layer: %s uses %s of %s\n", name, short(o), s, short(def[s])
				bad = 1
			}
		}
		if (!bad) printf "ok - %s: no call goes up a layer\n", name
		for (o in objs) if (!color[o] && !found) dfs(o)
		if (found) {
			c = cyc; gsub(bdir, "", c); gsub(/rt\//, "", c); gsub(/\.o/, ".c", c)
			printf "not ok - %s: files call each other in a circle: %s\n", name, c
			bad = 1
		} else printf "ok - %s: no files call each other in a circle\n", name
		exit bad
	}' || status=1
}
check_objs lib "$B"/lib/*/*.o
if [ -d "$B/rt/runtime" ]; then
	check_objs runtime "$B"/rt/runtime/*.o
fi
# 4. commands: no file of cmds/ includes a header of cmds/ but cmds/cmds.h
# (the dispatcher's table): what two commands share lives in lib/.
bad=$(grep -HnE '#include "cmds/' cmds/*.[ch] | grep -v '"cmds/cmds.h"')
if [ -z "$bad" ]; then say OK "cmds/ includes no header of cmds/ but cmds/cmds.h"
else say FAIL "cmds/ includes a header of cmds/: $(echo "$bad" | head -3 | tr '\n' ' ')"; fi
exit $status
