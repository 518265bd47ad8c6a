#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/procs_mem.sh - many processes of one program read in the
# memory of one (issue 25): a shell loop runs a small traced program
# (tests/progs/simple.c) once, then NPROC (150) times, under -p function
# (the shell traced too, with its libraries); `report` and `report
# --profile` of the long loop must peak (max RSS, /usr/bin/time) at most
# 1.5x what they take on the 1-process file.  Every process brings the
# same symbol tables, which the reader keeps once per binary
# (lib/tracefile/dat_bins.c); it kept them once per process, 5x at 100
# processes, 35x at 800.  A ratio of the same machine's runs, no figure.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"
NPROC=${PROCS_MEM_N:-150}
[ -x /usr/bin/time ] || unsupported "/usr/bin/time not installed"
build simple "$ROOT/tests/progs/simple.c" gcc -O2 -I"$ROOT/tests/progs" || exit 1

# loop N: record a shell running simple N times into $W/pN.dat
loop() {
	run_traced "$W/p$1" -p function -- sh -c \
		"i=0; while [ \$i -lt $1 ]; do '$W/simple' >/dev/null; i=\$((i+1)); done"
	if [ "$(cat "$W/p$1.rc")" != 0 ]; then
		notok "record of $1 processes"
		sed 's/^/#   /' "$W/p$1.rec" | tail -3
		return 1
	fi
}
# rss FILE ARGS...: max RSS in KB of `utrace ARGS -i FILE`
rss() {
	local f=$1
	shift
	/usr/bin/time -f %M -o "$W/time" "$U" "$@" -i "$f" >/dev/null 2>"$W/rss.err" &&
		cat "$W/time"
}

loop 1 && loop "$NPROC" || exit 1
procs=$(grep -c '^# exe image' < <("$U" info -i "$W/p$NPROC.dat" 2>/dev/null))
check "the long loop's file holds its $((NPROC + 1)) processes (got $procs)" \
	test "$procs" -eq $((NPROC + 1))
for what in report "report --profile"; do
	# shellcheck disable=SC2086 # what is a command and its option
	one=$(rss "$W/p1.dat" $what) && many=$(rss "$W/p$NPROC.dat" $what)
	if [ -z "$one" ] || [ -z "$many" ]; then
		notok "$what: failed"
		sed 's/^/#   /' "$W/rss.err" | tail -3
		continue
	fi
	check "$what: $((NPROC + 1)) processes in ${many} KB, 1 in ${one} KB (at most 1.5x)" \
		test $((many * 2)) -le $((one * 3))
done
