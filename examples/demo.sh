#!/bin/bash
# The demo: build examples/wordfreq.c with the instrumentation flags, record
# it with the function_graph tracer and show what utrace saw.
# Usage: examples/demo.sh [BUILD_DIR]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
B=${1:-build}
case "$B" in /*) ;; *) B="$top/$B" ;; esac
U="$B/utrace"
out="$B/demo"
mkdir -p "$out"

# first N lines of a command's output (no SIGPIPE under pipefail)
first() {
	local n=$1
	shift
	"$@" >"$out/.show"
	head -n "$n" "$out/.show"
}

flags=$("$U" cflags)
# -fno-inline keeps the small static helpers as functions of their own, so
# there is something to see.
echo "\$ cc -O2 -fno-inline -g $flags -Iinclude -Iexamples examples/wordfreq.c -o wordfreq"
cc -O2 -fno-inline -g $flags -I"$top/include" -I"$top/examples" "$top/examples/wordfreq.c" \
	-o "$out/wordfreq"

echo
echo "\$ utrace list -f wordfreq        # available_filter_functions"
first 20 "$U" list -f "$out/wordfreq"

echo
echo "\$ utrace record -o wordfreq.dat -- ./wordfreq"
"$U" record -o "$out/wordfreq.dat" -- "$out/wordfreq"

echo
echo "\$ utrace report -i wordfreq.dat | head -24"
first 24 "$U" report -i "$out/wordfreq.dat"

echo
echo "\$ utrace record -l main -l tokenize -l 'report*' -o wordfreq-top.dat -- ./wordfreq   # set_ftrace_filter"
"$U" record -l main -l tokenize -l 'report*' -o "$out/wordfreq-top.dat" -- "$out/wordfreq" >/dev/null
"$U" report -i "$out/wordfreq-top.dat"

echo
echo "\$ utrace record -g 'add_word' --max-graph-depth 2 -o wordfreq-add.dat -- ./wordfreq   # set_graph_function"
"$U" record -g add_word --max-graph-depth 2 -o "$out/wordfreq-add.dat" -- "$out/wordfreq" >/dev/null
first 12 "$U" report -i "$out/wordfreq-add.dat"

echo
echo "\$ utrace record -p function -l 'add_word' -l 'lookup' -o wordfreq-fn.dat -- ./wordfreq"
"$U" record -p function -l add_word -l lookup -o "$out/wordfreq-fn.dat" -- "$out/wordfreq" >/dev/null
first 12 "$U" report -i "$out/wordfreq-fn.dat"

echo
echo "\$ utrace list -e wordfreq        # its static tracepoints (TRACE_EVENT)"
"$U" list -e "$out/wordfreq"

echo
echo "\$ utrace record -e demo:demo_word -f 'count >= 3' -l tokenize -l 'report*' -o wordfreq-ev.dat -- ./wordfreq"
"$U" record -e demo:demo_word -f 'count >= 3' -l tokenize -l 'report*' -o "$out/wordfreq-ev.dat" -- "$out/wordfreq" >/dev/null
first 20 "$U" report -i "$out/wordfreq-ev.dat"

# kernel events, where this machine lets us (root and tracefs)
if [ "$(id -u)" = 0 ] && { [ -d /sys/kernel/tracing/events/syscalls ] ||
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null; } && [ -d /sys/kernel/tracing/events/syscalls ]; then
	echo
	echo "\$ utrace record -e syscalls:sys_enter_write -l main -l 'report*' -o wordfreq-k.dat -- ./wordfreq   # a kernel event inside the calls"
	"$U" record -e syscalls:sys_enter_write -l main -l 'report*' -o "$out/wordfreq-k.dat" -- "$out/wordfreq" >/dev/null
	first 12 "$U" report -i "$out/wordfreq-k.dat"
fi
