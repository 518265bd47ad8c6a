#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/node.sh - Node.js (issue 21, item 10): V8's builtins use
# their own register conventions and are entered at computed offsets, and
# V8 walks the return addresses of its stack.  Its builtins are left out
# of the entry patching and function_graph leaves the object's returns
# alone.  `node -e 'console.log(1+1)'` as the issue spells it, with every
# function patched, then a script of timers and promises with a filter
# that asks for V8's builtins (patching all 77k functions of node makes it
# slow, not different).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"
command -v node >/dev/null || unsupported "no node (nodejs)"

run_plain "$W/a" node -e 'console.log(1+1)'
while read -r mode; do
	# shellcheck disable=SC2086 # a mode is a list of options
	run_traced "$W/b" $mode -- node -e 'console.log(1+1)'
	same_run "node -e 'console.log(1+1)', $mode" "$W/a" "$W/b" ||
		grep -v '^utrace' "$W/b.err" | head -5 | sed 's/^/#   /'
	check "node -e, $mode: records were written" \
		grep -q 'utrace record: [1-9][0-9]* records' "$W/b.rec"
	rm -f "$W/b.dat"
done < <(each_mode)

js=$HP/node_timers.js
uv=$("$U" list -f "$(readlink -f "$(command -v node)")" 2>/dev/null | grep -x uv_run)
run_plain "$W/a" node "$js"
while read -r mode; do
	# shellcheck disable=SC2086 # a mode is a list of options
	run_traced "$W/b" $mode -l 'uv_*' -l 'Builtins_*' -- node "$js"
	same_run "node timers and promises, $mode" "$W/a" "$W/b" ||
		grep -v '^utrace' "$W/b.err" | head -5 | sed 's/^/#   /'
	"$U" report -i "$W/b.dat" --profile -f call >"$W/prof" 2>&1
	# libuv is in node's binary here, or Debian's libuv1 (not traced)
	[ "$uv" ] && check "node timers and promises, $mode: uv_run traced" \
		awk '$2 == "uv_run" && $1 > 0 { f = 1 } END { exit !f }' "$W/prof"
	check "node timers and promises, $mode: no builtin of V8 detoured" \
		eval "! grep -q ' Builtins_' '$W/prof'"
done < <(each_mode)
if grep -q "V8 reads the return addresses" "$W/b.rec"; then
	check "node: function_graph says once that it traces V8's entries only" \
		test "$(grep -c 'V8 reads the return addresses' "$W/b.rec")" = 1
fi
