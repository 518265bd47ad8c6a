#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/diff/pprof.sh BUILD_DIR - `go tool pprof` on utrace dump --pprof
# (issue 22 item 3), on tests/kernel/kburn.c sampled alone (-p nop -F 999
# --call-graph fp):
#
#   - -top -sample_index=samples: the total is the recording's samples
#     (report --samples' "# Samples"), never a count per frame
#   - -top -sample_index=cpu: every function's flat and cum shares are
#     report --samples --children's Self and Children, function by function
#   - -raw: every location of the program has the file:line addr2line
#     gives for its address
#   - -list burn60 shows kburn.c's line with burn60's time, -disasm burn60
#     its instructions, their times adding up to burn60's flat time
#   - a function_graph recording's profile (kburn built with utrace
#     cflags): -sample_index=calls flat is each function's calls, time's
#     flat and cum its self and total time in utrace report --profile
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
need_tool go "go tool pprof is not installed (golang-go)"
need_tool addr2line "addr2line is not installed (binutils)"
kburn || exit 1
if ! (cd "$T" && "$U" record -p nop -F 999 --call-graph fp -o s.dat -- ./kburn 2000000 \
	>/dev/null 2>rec.err); then
	grep -q "perf_event_open" "$T/rec.err" && unsupported "$(head -1 "$T/rec.err")"
	notok "record -p nop -F 999 --call-graph fp"
	sed 's/^/#   /' "$T/rec.err"
	exit 1
fi
"$U" dump --pprof -o "$T/s.pb.gz" -i "$T/s.dat" 2>"$T/dump.err"
check "dump --pprof of a samples-only recording ($(head -1 "$T/dump.err"))" test -s "$T/s.pb.gz"
"$U" report --samples --children --sort sym -i "$T/s.dat" >"$T/rep" 2>&1
pp() { (cd / && go tool pprof -nodefraction=0 -nodecount=1000000 "$@" "$T/s.pb.gz" 2>/dev/null); }

# the samples: pprof's total is the recording's count
pp -top -sample_index=samples >"$T/top.samples"
got=$(sed -n 's/^Showing nodes accounting for [0-9]*, [0-9.]*% of \([0-9]*\) total$/\1/p' "$T/top.samples")
n=$(samples_n "$T/rep")
check "pprof -top: $n samples in all, as report --samples (pprof: ${got:-none})" \
	test -n "$n" -a "${got:-x}" = "$n"

# every function's flat and cum shares of the CPU time: Self and Children
pp -top -sample_index=cpu -unit=ns >"$T/top.cpu"
# (an address without a symbol: utrace prints it, pprof "<unknown>" or
# its file "[name]")
awk '$1 ~ /^[0-9]+(ns)?$/ && $2 ~ /%$/ && $NF !~ /^(0x|<unknown>|\[.*\]$)/ {
	printf "%s %.2f %.2f\n", $NF, $2, $5 }' "$T/top.cpu" | sort >"$T/pprof.fn"
# (report prints an address without a symbol as perf does, "%#018x":
# 0x-prefixed, and the address 0 as zeros)
awk '$1 ~ /%$/ && $2 ~ /%$/ && $3 ~ /^\[.\]$/ && $4 !~ /^(0x|0+$)/ {
	printf "%s %.2f %.2f\n", $4, $2, $1 }' "$T/rep" | sort >"$T/utrace.fn"
check "pprof -top names the functions report --samples names ($(wc -l <"$T/utrace.fn"))" \
	test -s "$T/utrace.fn"
same "pprof -top's flat% and cum% of every function are report --samples' Self and Children" \
	"$T/utrace.fn" "$T/pprof.fn"

# the program's locations: the file:line addr2line gives
pp -raw >"$T/raw"
prog=$(awk -v f="$T/kburn" '/^Mappings/ { m = 1; next } m && $3 == f { sub(":", "", $1); print $1 }' \
	"$T/raw")
# (a location without a line, such as _start's or one of crtstuff's,
# which a frame-pointer walk through libc can pass on the stack, prints
# as "FILE:0": addr2line must have no line there either, "??:?" or
# "FILE:?"; both are written "-")
awk -v m="M=$prog" '/^Locations/ { l = 1; next } /^Mappings/ { l = 0 }
	l && $3 == m && NF >= 5 { print $2, ($5 ~ /:0$/ ? "-" : $5) }' "$T/raw" | sort >"$T/locs"
while read -r addr line; do
	echo "$addr $(addr2line -e "$T/kburn" "$addr" |
		sed 's/ (discriminator [0-9]*)$//; s/^.*:[?0]$/-/')"
done <"$T/locs" >"$T/a2l"
check "pprof -raw: the program's locations have lines ($(grep -vc ' -$' "$T/locs"))" \
	grep -qv ' -$' "$T/locs"
same "every location's file:line is addr2line's for its address" "$T/a2l" "$T/locs"

# -list and -disasm
flat=$(awk '$NF == "burn60" { print $1 }' "$T/top.cpu")
pp -list burn60 -unit=ns >"$T/list"
check "pprof -list burn60: kburn.c's source with burn60's time ($flat)" \
	grep -q "^ *$flat .*BURN(burn10" "$T/list"
pp -disasm burn60 -unit=ns >"$T/disasm"
sum=$(awk '$1 ~ /^[0-9]+ns$/ && $3 ~ /^[0-9a-f]+:$/ { s += $1 + 0 } END { print s + 0 }' "$T/disasm")
check "pprof -disasm burn60: its instructions' times add up to its flat time (${sum}ns of $flat)" \
	test "${sum}ns" = "$flat"

# the call graph of a function_graph recording
(cd "$T" && "$U" record -o g.dat -- ./kburn.u 100000 >/dev/null 2>&1)
"$U" dump --pprof -o "$T/g.pb.gz" -i "$T/g.dat" 2>"$T/g.err"
check "dump --pprof of a function_graph recording ($(head -1 "$T/g.err"))" test -s "$T/g.pb.gz"
gp() { (cd / && go tool pprof -nodefraction=0 -nodecount=1000000 "$@" "$T/g.pb.gz" 2>/dev/null); }
gp -top -sample_index=calls >"$T/g.calls"
gp -top -sample_index=time -unit=ns >"$T/g.time"
awk '$2 ~ /%$/ && $1 ~ /^[0-9]+$/ { print $NF, $1 }' "$T/g.calls" | sort >"$T/g.c"
awk '$2 ~ /%$/ && $1 ~ /^[0-9]+(ns)?$/ { t = $4; sub(/ns$/, "", t); f = $1; sub(/ns$/, "", f)
	print $NF, f, t }' "$T/g.time" | sort >"$T/g.t"
join "$T/g.c" "$T/g.t" >"$T/g.pprof"
"$U" report --profile -f total,self,call -i "$T/g.dat" >"$T/g.prof" 2>&1
awk "$AWK_NS"'
	$2 ~ /^(ns|us|ms|s)$/ && $4 ~ /^(ns|us|ms|s)$/ && $5 ~ /^[0-9]+$/ {
	printf "%s %d %.0f %.0f\n", $6, $5, ns($3, $4), ns($1, $2) }' "$T/g.prof" | sort >"$T/g.utrace"
if [ -s "$T/g.utrace" ] && [ "$(wc -l <"$T/g.utrace")" = "$(wc -l <"$T/g.pprof")" ] &&
	join "$T/g.utrace" "$T/g.pprof" | awk "$AWK_NS"'
	NF != 7 || $2 != $5 || far($3, $6) || far($4, $7) { bad = 1 } END { exit bad }'; then
	ok "function_graph: pprof's calls, flat and cum are report --profile's calls, self and total"
else
	notok "function_graph: pprof's calls, flat and cum are report --profile's calls, self and total"
	diff "$T/g.utrace" "$T/g.pprof" | head -10 | sed 's/^/#   /'
fi
exit 0
