#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/rust.sh - a Rust program built without utrace's flags
# (issue 21, item 10): threads, and panics caught with catch_unwind, whose
# unwinder walks the frames function_graph hooked.  It works; this keeps
# it so: same output and exit status as untraced, and the exact count of
# an exported function's calls, at -O0 and -O2, in both tracers.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"
command -v rustc >/dev/null || unsupported "no rustc"

T=4 CALLS=500 # threads, hostile_step calls each
for opt in 0 2; do
	if ! rustc -C opt-level=$opt -o "$W/rust$opt" "$HP/rust_hostile.rs" >"$W/rustc.out" 2>&1; then
		notok "rustc -C opt-level=$opt"
		sed 's/^/#   /' "$W/rustc.out" | head -10
		continue
	fi
	run_plain "$W/a" "$W/rust$opt" $T $CALLS
	while read -r mode; do
		# shellcheck disable=SC2086 # a mode is a list of options
		run_traced "$W/b" $mode -- "$W/rust$opt" $T $CALLS
		same_run "rust -O$opt, $mode: threads and caught panics" "$W/a" "$W/b" ||
			grep -v '^utrace' "$W/b.err" | head -5 | sed 's/^/#   /'
		"$U" report -i "$W/b.dat" --profile -f call >"$W/prof" 2>/dev/null
		check "rust -O$opt, $mode: hostile_step called $((T * CALLS)) times" \
			test "$(awk '$2 == "hostile_step" { print $1 }' "$W/prof")" = $((T * CALLS))
	done < <(each_mode)
done
