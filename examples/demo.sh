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

flags=$("$U" cflags)
echo "\$ cc -O2 -g $flags examples/wordfreq.c -o wordfreq"
cc -O2 -g $flags "$top/examples/wordfreq.c" -o "$out/wordfreq"

echo
echo "\$ utrace list -f wordfreq        # available_filter_functions"
"$U" list -f "$out/wordfreq" | grep -v '\[' | head -20

echo
echo "\$ utrace record -o wordfreq.dat -- ./wordfreq"
"$U" record -o "$out/wordfreq.dat" -- "$out/wordfreq"

echo
echo "\$ utrace report -i wordfreq.dat | head -40"
"$U" report -i "$out/wordfreq.dat" | head -40

echo
echo "\$ utrace record -p function -l 'add_word' -l 'lookup' -o wordfreq-fn.dat -- ./wordfreq"
"$U" record -p function -l add_word -l lookup -o "$out/wordfreq-fn.dat" -- "$out/wordfreq" >/dev/null
"$U" report -i "$out/wordfreq-fn.dat" | head -14
