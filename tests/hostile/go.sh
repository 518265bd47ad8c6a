#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/go.sh - Go programs (issue 21, item 10): goroutines whose
# stacks grow and are copied, a recovered panic, cgo calls.  Linked
# dynamically (cgo on), Go's code is left out of the entry patching (its
# goroutine stacks cannot run the tracer, goexit+1 is a return address
# inside its entry) and function_graph leaves every return address of the
# program alone; its C code is traced, with exact counts, in both
# tracers.  A static build gets a message saying what works instead.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"
command -v go >/dev/null || unsupported "no go compiler (golang-go)"

G=6 CALLS=150 DEPTH=20000 # goroutines, cgo calls each, recursion depth
export GOFLAGS=-buildvcs=false
gobuild() { # gobuild NAME SRC [GO BUILD FLAGS...]
	local name=$1 src=$2
	shift 2
	if ! go build "$@" -o "$W/$name" "$HP/$src" >"$W/$name.build" 2>&1; then
		notok "go build $name $*"
		sed 's/^/#   /' "$W/$name.build" | head -10
		return 1
	fi
}
calls_of() { # calls_of DAT FUNCTION: its calls in the profile
	"$U" report -i "$1" --profile -f call 2>/dev/null | awk -v f="$2" '$2 == f { print $1 }'
}

for link in internal external; do
	CGO_ENABLED=1 gobuild "go_$link" go_hostile.go -ldflags=-linkmode=$link || continue
	if readelf -S "$W/go_$link" | grep -q '\.interp'; then
		ok "go_$link is dynamically linked"
	else
		notok "go_$link is dynamically linked"
		continue
	fi
	run_plain "$W/a" "$W/go_$link" $G $CALLS $DEPTH
	while read -r mode; do
		# shellcheck disable=SC2086 # a mode is a list of options
		run_traced "$W/b" $mode -- "$W/go_$link" $G $CALLS $DEPTH
		same_run "go ($link linking), $mode: same output and exit status" "$W/a" "$W/b" ||
			sed 's/^/#   /' "$W/b.err" | grep -v '^#   utrace' | head -5
		check "go ($link linking), $mode: cgo_step called $((G * CALLS)) times" \
			test "$(calls_of "$W/b.dat" cgo_step)" = $((G * CALLS))
		"$U" report -i "$W/b.dat" >/dev/null 2>"$W/report.err"
		check "go ($link linking), $mode: report reads it without a warning" \
			test ! -s "$W/report.err"
	done < <(each_mode)
	# the last mode is function_graph: the notice, once
	check "go ($link linking): function_graph says once that it traces entries only" \
		test "$(grep -c 'Go reads the return addresses on its stack' "$W/b.rec")" = 1
done

# the default build: static, nothing can be preloaded
CGO_ENABLED=0 gobuild go_static go_static.go || exit 0
run_plain "$W/a" "$W/go_static"
run_traced "$W/b" -- "$W/go_static"
same_run "static go: same output and exit status" "$W/a" "$W/b"
check "static go: the recorder says it is statically linked and what works" \
	grep -q "go_static is statically linked (a Go program): .*what works: sampling" "$W/b.rec"
check "static go: no advice to build it with utrace's flags" \
	eval "! grep -q 'build it with the flags' '$W/b.rec'"
