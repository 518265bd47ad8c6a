#!/bin/bash
# tests/kernel/tracefs_kprobe_syntax.sh BUILD_DIR - the live tracefs's
# kprobe_events and dynamic_events in the forms of the kernel's own
# selftests (tests/ftracetest, issue 23), on a running program whose
# functions hold known instructions: a probe inside the bytes another
# probe's 5-byte jmp replaces is refused (the kernel's BAD_INSN_BNDRY)
# and the program runs on (kprobe_insn_boundary.tc probed every offset of
# a function and the program died of the corrupted jmp).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_fuse
need_built "$U"
command -v objdump >/dev/null || unsupported "no objdump"

live_tmp
# func_seq: four 4-byte adds after the entry's NOPs, (x + 10) each call
cat >"$T/ks.c" <<'PROG'
#include <unistd.h>
__attribute__((noinline)) long func_seq(long x)
{
	__asm__ volatile("add $1, %0\n\tadd $2, %0\n\tadd $3, %0\n\tadd $4, %0" : "+r"(x));
	return x;
}
int main(int argc, char **argv)
{
	volatile long v = 0;

	while (access(argv[1], F_OK) != 0) {
		for (int i = 0; i < 50; i++)
			v = func_seq(i);
		usleep(1000);
	}
	return 0;
}
PROG
cc -O2 $("$U" cflags) -o "$T/ks" "$T/ks.c" || { notok "build the program"; exit 1; }
# the offsets of func_seq's first two instructions after its NOPs
read -r A1 A2 < <(objdump -d --no-show-raw-insn "$T/ks" | awk '/<func_seq>:/ { f = 1; next }
	f && /^$/ { exit } f && $2 == "endbr64" { next } f && /^ *[0-9a-f]+:/ {
	a = strtonum("0x" substr($1, 1, length($1) - 1)); if (!s) s = a
	if ($2 != "nop") { o[n++] = a - s; if (n == 2) { print o[0], o[1]; exit } } }')
[ -n "${A2:-}" ] || unsupported "func_seq's instructions not found"

"$U" record -p nop --tracefs "$T/mnt" -o "$T/ks.dat" -- "$T/ks" "$T/stop" >"$T/rec.out" 2>&1 &
RP=$!
for _ in $(seq 100); do [ -f "$T/mnt/kprobe_events" ] && break; sleep 0.05; done
cd "$T/mnt" || exit 1

# a jmp over [A1, A1 + 8) once the probe at A1 is optimised: a probe at A2
# would write into that jmp
echo "p:kp/first func_seq+$A1" >>kprobe_events
check "a probe at func_seq+$A1 is added" test $? -eq 0
echo "p:kp/second func_seq+$A2" >>kprobe_events 2>/dev/null
check "one at func_seq+$A2, under the first one's jmp, is refused" test $? -ne 0
check "with the kernel's BAD_INSN_BNDRY at the probe point" errlog_is trace_kprobe \
	"Probe point is not an instruction boundary" "p:kp/second func_seq+$A2" 12
echo 1 >events/kp/first/enable
check "the first one records" trace_shows "$T/t1" ' first: '
echo 0 >events/kp/first/enable
echo >kprobe_events
empty() { # FILE is read (the mount answers) and has nothing
	local c
	c=$(cat "$1") && test -z "$c"
}
check "the probes are removed" empty kprobe_events
cd / || exit 1
touch "$T/stop"
wait "$RP"
st=$?
RP=
check "the program ran through and ended well (status $st)" test "$st" -eq 0
exit 0
