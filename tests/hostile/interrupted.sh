#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/interrupted.sh - the recorder interrupted (SIGINT) while
# its command runs on: the recorder saves what it has and waits for the
# command, which goes on untraced.  A process the command starts after
# the interrupt (its runtime connecting for its CONFIG) must run, not wait
# forever on a socket the recorder no longer serves (the kernel tier's
# tracefs.sh Ctrl-C case hung on it when the interrupt came before the
# program's constructor had connected).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

rm -f "$W/go"
"$U" record -o "$W/int.dat" -- /bin/sh -c \
	'while [ ! -f "$1" ]; do sleep 0.05; done; /bin/echo started after; exit 3' sh "$W/go" \
	>"$W/int.out" 2>"$W/int.rec" &
R=$!
# a watchdog, not timeout(1): that would send the INT to the command too
( sleep 60; touch "$W/go"; kill -9 "$R" ) 2>/dev/null &
WD=$!
sleep 0.5
kill -INT "$R"
for _ in $(seq 600); do grep -q "interrupted" "$W/int.rec" && break; sleep 0.05; done
touch "$W/go"
wait "$R"
rc=$?
kill "$WD" 2>/dev/null
check "a command interrupted under record ends with its own status ($rc)" test "$rc" -eq 3
check "a process it starts after the interrupt runs, untraced ($(tail -1 "$W/int.rec"))" \
	grep -qx "started after" "$W/int.out"
