#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/bt_static.sh BUILD_DIR - `utrace bt -c` on a program that
# utrace's runtime cannot be preloaded into (statically linked: a C
# program built -static, Go's default build): its uprobes are kernel
# uprobes of the recording (lib/bt/bt_target.c kuprobes_why), so the
# counts are the program's, as bpftrace's, where in-process probes would
# never run and would count 0; what a kernel uprobe cannot do (ustack, a
# uretprobe on Go) is an error before the program runs; nothing is left
# in uprobe_events.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_uprobe_events
need_built "$U"

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
not() { ! "$@"; }

# fib 10: fib called 177 times, its results summing to 420
if ! cc -O1 -static -o "$T/fibs" "$ROOT/tests/progs/fib.c" 2>"$T/cc.err"; then
	unsupported "no static C library (libc6-dev's libc.a): $(head -1 "$T/cc.err")"
fi
prog="uprobe:$T/fibs:fib { @c = count(); } uretprobe:$T/fibs:fib { @r = sum(retval); }"
"$U" bt -v -e "$prog" -c "$T/fibs 10" >"$T/c.out" 2>"$T/c.err"
counts() { grep -qx '@c: 177' "$T/c.out" && grep -qx '@r: 420' "$T/c.out"; }
check "a static C program: its uprobe and uretprobe count its calls (177, 420)" counts
check "... its output untouched" grep -qx 'fib(10) = 55' "$T/c.out"
check "... -v says a kernel uprobe serves it, and why" \
	grep -q "kernel uprobe (p:utrace/p0 $T/fibs:fib .*statically linked" "$T/c.err"
if command -v bpftrace >/dev/null && bpftrace -e "$prog" -c "$T/fibs 10" >"$T/c.bpf" 2>/dev/null; then
	check "... as bpftrace counts" test "$(grep '^@' "$T/c.bpf")" = "$(grep '^@' "$T/c.out")"
fi
"$U" bt -e "uprobe:$T/fibs:fib { @[ustack] = count(); }" -c "$T/fibs 10" >"$T/s.out" 2>"$T/s.err"
check "ustack there: an error before the program runs" \
	test $? = 1 -a ! -s "$T/s.out" -a -n "$(grep 'ustack needs an in-process probe' "$T/s.err")"

# Go's default build (cgo off) is static; work is nosplit, so no stack
# growth runs its entry twice for one call
if command -v go >/dev/null; then
	mkdir -p "$T/go"
	cat >"$T/go/main.go" <<'GO'
package main

import "fmt"

//go:noinline
//go:nosplit
func work(n int) int { return n * 2 }

func main() {
	t := 0
	for i := 0; i < 1000; i++ {
		t += work(i)
	}
	fmt.Println(t)
}
GO
	if (cd "$T/go" && GOFLAGS=-buildvcs=false GOCACHE="$T/gocache" CGO_ENABLED=0 go mod init gos >/dev/null 2>&1 &&
		GOFLAGS=-buildvcs=false GOCACHE="$T/gocache" CGO_ENABLED=0 go build -o "$T/gos" . ) >"$T/go.err" 2>&1; then
		"$U" bt -e "uprobe:$T/gos:main.work { @ = count(); }" -c "$T/gos" >"$T/g.out" 2>"$T/g.err"
		check "a static Go program: its function's calls counted (1000)" \
			test $? = 0 -a -n "$(grep -x '@: 1000' "$T/g.out")" -a -n "$(grep -x 999000 "$T/g.out")"
		"$U" bt -e "uretprobe:$T/gos:main.work { @ = count(); }" -c "$T/gos" >"$T/r.out" 2>"$T/r.err"
		check "a uretprobe on Go: refused before the program runs (Go walks return addresses)" \
			test $? = 1 -a -z "$(grep 999000 "$T/r.out")" -a -n "$(grep 'is a Go program' "$T/r.err")"
	else
		echo "# go build failed: $(head -3 "$T/go.err")"
		notok "build a static Go program"
	fi
fi
check "nothing of ours left in uprobe_events" not grep -q "$T/" /sys/kernel/tracing/uprobe_events
exit 0
