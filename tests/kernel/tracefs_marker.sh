#!/bin/bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/tracefs_marker.sh BUILD_DIR - trace_marker of `utrace
# record --tracefs` beyond one short line (tracefs.sh has that): a text
# longer than one record holds is cut where the sub-buffer's largest
# print record ends (events/header_page's data size less the event header
# and the print format's buf offset, as ftracetest's trace_marker.tc
# reckons it), the write is short, as the kernel's, and a writer that
# writes the rest gets it as the next record, so that the records put
# together are the text.  buffer_subbuf_size_kb, as the kernel's: a size
# in KiB rounded up to a power of two of 4 KiB pages (1 to 128, else
# EINVAL), which events/header_page and that cut then follow; the buffer
# the marker's thread had is replaced by one of the new size (a record
# larger than its old sub-buffers is whole), and what the buffers held
# is gone from trace, as the kernel's resize discards it.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"
command -v python3 >/dev/null || unsupported "no python3"

live_tmp
cc -O2 $("$U" cflags) -I"$ROOT/include" -I"$ROOT/tests/kernel" -o "$T/ltp" \
	"$ROOT/tests/kernel/ltp.c" ||
	{ notok "build the tracepoint program"; exit 1; }
"$U" record -p nop --tracefs "$T/mnt" -o "$T/ltp.dat" -- "$T/ltp" "$T/stop" >"$T/ltp.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -s "$T/mnt/available_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1

# marker texts: the text of each tracing_mark_write line of trace, in order
marker_texts() { sed -n 's/^.* tracing_mark_write: //p' trace; }

data=$(sed -n 's/^.*data.*size:\([0-9]*\).*/\1/p' events/header_page)
# the event header's bits: type_len, time_delta and array
bits=0
for f in type_len time_delta array; do
	b=$(sed -n "s/^.*$f.*:[^0-9]*\\([0-9][0-9]*\\).*/\\1/p" events/header_event)
	bits=$((bits + ${b:-100000}))
done
hdr=$(((bits + 7) / 8))
buf=$(sed -n 's/^.*buf.*offset:\([0-9]*\).*/\1/p' events/ftrace/print/format)
check "header_page, header_event and print/format give the sizes ($data $hdr $buf)" \
	test -n "$data" -a -n "$hdr" -a -n "$buf"
max=$((data - hdr - buf))
long=$((max + 1000))

echo >trace
# one write() of long bytes: what it returns, then the rest written as
# the shell's echo does
python3 - "$long" >"$T/w1" <<'PY'
import os, sys
n = int(sys.argv[1])
text = b"".join(b"%c" % (65 + i % 26) for i in range(n))
fd = os.open("trace_marker", os.O_WRONLY)
first = os.write(fd, text)
done = first
while done < n:
    done += os.write(fd, text[done:])
os.close(fd)
print(first)
PY
check "a write longer than one record is short: $max of $long bytes ($(cat "$T/w1"))" \
	test "$(cat "$T/w1")" = "$max"
marker_texts >"$T/m1"
check "it is two records" test "$(wc -l <"$T/m1")" = 2
check "the first holds $max bytes" test "$(head -1 "$T/m1" | tr -d '\n' | wc -c)" = "$max"
want=$(python3 -c "import sys; n=int(sys.argv[1]); print(''.join(chr(65 + i % 26) for i in range(n)))" "$long")
check "put together they are the text" test "$(tr -d '\n' <"$T/m1")" = "$want"

echo >trace
python3 -c 'import os, sys
fd = os.open("trace_marker", os.O_WRONLY)
print(os.write(fd, sys.argv[1].encode() + b"\n"))' "$(head -c "$max" <<<"$want")" >"$T/w2"
check "a text of $max bytes and its newline is taken whole ($(cat "$T/w2"))" \
	test "$(cat "$T/w2")" = $((max + 1))
marker_texts >"$T/m2"
check "a text of $max bytes and its newline is one record, whole" \
	test "$(wc -l <"$T/m2") $(tr -d '\n' <"$T/m2" | wc -c)" = "1 $max"

# buffer_subbuf_size_kb
data_of() { sed -n 's/^.*data.*size:\([0-9]*\).*/\1/p' events/header_page; }
check "buffer_subbuf_size_kb is 16 at first" test "$(cat buffer_subbuf_size_kb)" = 16
for bad in 0 513 abc -4; do
	check "buffer_subbuf_size_kb: $bad is EINVAL" \
		python3 -c 'import os, sys, errno
fd = os.open("buffer_subbuf_size_kb", os.O_WRONLY)
try:
    os.write(fd, sys.argv[1].encode() + b"\n")
except OSError as e:
    sys.exit(e.errno != errno.EINVAL)
sys.exit(1)' "$bad"
done
check "buffer_subbuf_size_kb is still 16" test "$(cat buffer_subbuf_size_kb)" = 16
echo before-resize >trace_marker
check "a marker is in trace" grep -q before-resize trace
echo 3 >buffer_subbuf_size_kb
check "3 KiB is one page: 4 KiB ($(cat buffer_subbuf_size_kb))" test "$(cat buffer_subbuf_size_kb)" = 4
check "what the buffers held is gone from trace, as the kernel's resize discards it" \
	test "$(grep -c before-resize trace)" = 0
check "header_page's data is a 4 KiB sub-buffer's ($(data_of))" test "$(data_of)" = 4064
max4=$((4064 - hdr - buf))
python3 -c 'import os
fd = os.open("trace_marker", os.O_WRONLY)
print(os.write(fd, b"y" * 6000))' >"$T/w3"
check "a write is cut where a 4 KiB sub-buffer's record ends: $max4 ($(cat "$T/w3"))" \
	test "$(cat "$T/w3")" = "$max4"
echo same-size >trace_marker
echo 4 >buffer_subbuf_size_kb
check "the same size again discards nothing" grep -q same-size trace
echo 5 >buffer_subbuf_size_kb
check "5 KiB is rounded up to 8 ($(cat buffer_subbuf_size_kb))" test "$(cat buffer_subbuf_size_kb)" = 8
mkdir instances/sb
echo 32 >instances/sb/buffer_subbuf_size_kb
check "an instance's buffer_subbuf_size_kb is the shared buffers' (32: $(cat buffer_subbuf_size_kb))" \
	test "$(cat buffer_subbuf_size_kb) $(cat instances/sb/buffer_subbuf_size_kb)" = "32 32"
check "header_page's data is a 32 KiB sub-buffer's ($(data_of))" test "$(data_of)" = 32736
rmdir instances/sb
# 20000 bytes fit no record of the 4 KiB sub-buffers the marker's thread
# wrote its last marker in: it is whole only in a buffer made again
echo >trace
python3 -c 'import os
fd = os.open("trace_marker", os.O_WRONLY)
print(os.write(fd, b"z" * 20000 + b"\n"))' >"$T/w4"
check "a text of 20000 bytes and its newline is taken whole ($(cat "$T/w4"))" \
	test "$(cat "$T/w4")" = 20001
marker_texts >"$T/m4"
check "it is one record of 20000 bytes: the thread's buffer was made again" \
	test "$(wc -l <"$T/m4") $(tr -d '\n' <"$T/m4" | wc -c)" = "1 20000"
echo 16 >buffer_subbuf_size_kb

cd "$T" || exit 1
touch "$T/stop"
wait "$RP"
check "the program and the recording end well" test $? -eq 0
RP=
check "the file holds the 20000-byte record" \
	test "$("$U" report -i "$T/ltp.dat" 2>/dev/null | grep -c 'z\{20000\}')" = 1
"$U" info -i "$T/ltp.dat" >"$T/info" 2>&1
nthreads=$(sed -n 's/^# number of threads *: \([0-9]*\) traced.*/\1/p' "$T/info")
tids=$(sed -n 's/^# thread  *: [0-9]*\/\([0-9]*\)(.*/\1/p' "$T/info" | sort -u | wc -l)
check "info counts each thread once, its buffers made again too ($nthreads threads, $tids tids)" \
	test -n "$nthreads" -a "$nthreads" = "$tids"
check "info says which buffers were made again" grep -q '(a buffer made again)$' "$T/info"
summary=$(sed -n 's/^utrace record: .* from \([0-9]*\) threads of .*/\1/p' "$T/ltp.out")
check "the recording's summary counts them so too ($summary)" test "$summary" = "$nthreads"
exit 0
