#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/abi.sh - functions outside the C convention (issue 21,
# item 10): assembly that reads the flags on entry (a condition, the
# direction flag) and returns a condition in them, in a program built
# without utrace's flags, whose entries are patched.  The entry detour and
# function_graph's return must keep every flag: the program checks what
# each call saw, and the calls are counted exactly.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

R=200 # rounds: 7 flags_in and 1 flags_out calls each
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	for opt in -O0 -O2; do
		if ! $cc $opt -o "$W/abi" "$HP/abi_flags.c" 2>"$W/abi.build"; then
			notok "build abi_flags.c ($cc $opt)"
			continue
		fi
		run_plain "$W/a" "$W/abi" $R
		check "abi $cc $opt: untraced, every call saw its flags" test "$(cat "$W/a.rc")" = 0
		while read -r mode; do
			# the whole program, then only the assembly (its first traced
			# call has DF set: the thread's buffer is made then)
			for filt in "" "flags_*"; do
				f=() what=$mode
				[ -n "$filt" ] && f=(-l "$filt") what="$mode -l $filt"
				# shellcheck disable=SC2086 # a mode is a list of options
				run_traced "$W/b" $mode "${f[@]}" -- "$W/abi" $R
				same_run "abi $cc $opt, $what: flags kept" "$W/a" "$W/b" ||
					sed 's/^/#   /' "$W/b.out" | head -3
				"$U" report -i "$W/b.dat" --profile -f call >"$W/prof" 2>/dev/null
				check "abi $cc $opt, $what: flags_in and flags_out counted" \
					test "$(awk '$2 == "flags_in" { i = $1 } $2 == "flags_out" { o = $1 }
					END { print i + 0, o + 0 }' "$W/prof")" = "$((7 * R)) $R"
			done
		done < <(each_mode)
	done
done
