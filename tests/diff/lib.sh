# SPDX-License-Identifier: MIT
#
# tests/diff/lib.sh - the start every tests/diff/*.sh shares (run.sh does
# not run it): tests/kernel/lib.sh's (ROOT, B, U, ok, notok, check,
# unsupported, need_built, near_share, samples_n, ...), and:
#   need_tool TOOL WHY      unsupported WHY unless TOOL is on the PATH
#   T                       a fresh folder, removed on exit
#   build_wordfreq          T/wordfreq: examples/wordfreq.c with `utrace cflags`
#                           (its demo:demo_word tracepoints), errors into T/cc.err
#   write_event             kev: (-e syscalls:sys_enter_write) where tracefs has
#                           it and we are root, else empty
#   kburn                   T/kburn: tests/kernel/kburn.c (10/30/60% of
#                           its CPU time in burn10/30/60), -O2 -g, frame
#                           pointers; T/kburn.u the same built for utrace
#   same NAME FILE1 FILE2   ok if the two files are equal, else notok and
#                           the first lines of their diff (indented "#")
#   AWK_NS                  awk functions for utrace's printed times:
#                           ns(V, UNIT) in ns; far(U, P) whether a time U
#                           that utrace printed with 3 decimals of its
#                           unit (cut, not rounded) is not the peer's P;
#                           farn(U, P, N): the same for a total of N
#                           calls, each of which may differ by 1 ns where
#                           the peer reads absolute times (utrace's
#                           durations are converted from TSC deltas, the
#                           files' times one by one: each rounds once)
# A differential test runs a peer (trace-cmd, go tool pprof, perf,
# protoc) on what utrace wrote, or on the same program, and compares the
# peer's figures with utrace's own: any disagreement is a "not ok".
. "$(dirname "${BASH_SOURCE[0]}")/../kernel/lib.sh"

need_tool() {
	command -v "$1" >/dev/null 2>&1 || unsupported "$2"
}

T=$(mktemp -d /tmp/utrace-diff.XXXXXX) || exit 1
[ -n "${KEEP_T:-}" ] && echo "# kept: $T"
trap '[ -n "${KEEP_T:-}" ] || rm -rf "$T"' EXIT INT TERM
CC=${CC:-cc}

kburn() {
	$CC -O2 -g -fno-omit-frame-pointer -o "$T/kburn" "$ROOT/tests/kernel/kburn.c" &&
		$CC -O2 -g -fno-omit-frame-pointer $("$U" cflags) -o "$T/kburn.u" \
			"$ROOT/tests/kernel/kburn.c"
}

AWK_NS='function ns(v, u) { return u == "ns" ? v : u == "us" ? v * 1e3 : u == "ms" ? v * 1e6 : v * 1e9 }
function far(a, b) { d = a - b; if (d < 0) d = -d; return d >= (a >= 1e9 ? 1e6 : a >= 1e6 ? 1000 : 1) }
function farn(a, b, n) { d = a - b; if (d < 0) d = -d; return far(a, b) && d > n }'

same() { # same NAME FILE1 FILE2
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		notok "$1"
		diff "$2" "$3" | head -20 | sed 's/^/#   /'
	fi
}

build_wordfreq() {
	# shellcheck disable=SC2046 # cflags are words
	$CC -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/examples" -o "$T/wordfreq" \
		"$ROOT/examples/wordfreq.c" 2>>"$T/cc.err"
}

write_event() {
	kev=()
	find_tracefs 2>/dev/null
	[ "$(id -u)" -eq 0 ] && [ -n "${TR:-}" ] && [ -d "$TR/instances" ] &&
		[ -d "$TR/events/syscalls/sys_enter_write" ] && kev=(-e syscalls:sys_enter_write)
}
