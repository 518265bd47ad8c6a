#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/python.sh - python3, an interpreter built without utrace's
# flags (issue 21, item 10): threads, exceptions, a recursion limit, a C
# extension.  It works in both tracers; this keeps it so (same output and
# exit status as untraced, records written).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"
# Debian's, not a wrapper script found first in PATH (pyenv's shims)
PY=/usr/bin/python3
[ -x $PY ] || PY=$(command -v python3) || unsupported "no python3"

py=$HP/python_hostile.py
run_plain "$W/a" $PY "$py"
while read -r mode; do
	# shellcheck disable=SC2086 # a mode is a list of options
	run_traced "$W/b" $mode -- $PY "$py"
	same_run "python3, $mode: threads, exceptions, recursion limit" "$W/a" "$W/b" ||
		grep -v '^utrace' "$W/b.err" | head -5 | sed 's/^/#   /'
	check "python3, $mode: records were written" \
		grep -q 'utrace record: [1-9][0-9]* records' "$W/b.rec"
	rm -f "$W/b.dat"
done < <(each_mode)
