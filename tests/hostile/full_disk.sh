#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/full_disk.sh - a recording onto a full disk (issue 21,
# item 16): a 256 KiB tmpfs fills while recording (the recorder's 1 MiB
# buffer is written out during the run) or only at its end (the whole
# trace fits the buffer).  Either way: one line on standard error says what
# and where (the file named once, "No space left on device"), the program
# behaves as untraced, and what reached the disk is read by utrace report.
if [ -z "${FULL_DISK_NS:-}" ] && [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null; then
	export FULL_DISK_NS=1 # a mount namespace of our own: the tmpfs goes with it
	exec unshare -m --propagation private bash "$0" "$@"
fi
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_root "mounting a small tmpfs needs root"
[ -n "${FULL_DISK_NS:-}" ] || unsupported "no unshare -m"
need_built "$U" "$B/libutrace.so"
F=$W/full
mkdir "$F" && mount -t tmpfs -o size=256k tmpfs "$F" || unsupported "cannot mount a tmpfs"

build calls counts_calls.c || exit 1
for n in 1000000 40000; do
	when="the disk fills during the run"
	[ $n = 40000 ] && when="the disk fills at the end"
	run_plain "$W/a" "$W/calls" $n
	for tracer in function function_graph; do
		what="-p $tracer, $when"
		rm -f "$F"/*
		run_traced "$W/b" -p $tracer -o "$F/x.dat" -- "$W/calls" $n
		# run_traced's own -o comes first: ours, later, wins
		same_run "the program runs as untraced ($what)" "$W/a" "$W/b"
		check "one line says it ($what)" test "$(wc -l <"$W/b.rec")" -eq 1
		check "it says what: no space ($what)" grep -q "No space left on device" "$W/b.rec"
		check "it names the file once ($what)" \
			test "$(grep -o "$F/x.dat" "$W/b.rec" | wc -l)" -eq 1
		[ "$(wc -l <"$W/b.rec")" -eq 1 ] || sed 's/^/#   /' "$W/b.rec" | head -4
		check "report reads the calls that reached the disk ($what)" \
			test "$("$U" report -i "$F/x.dat" 2>/dev/null | grep -c 'leaf')" -gt 100
	done
done
umount "$F"
