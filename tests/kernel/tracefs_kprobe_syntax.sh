#!/bin/bash
# tests/kernel/tracefs_kprobe_syntax.sh BUILD_DIR - the live tracefs's
# kprobe_events and dynamic_events in the forms of the kernel's own
# selftests (tests/ftracetest, issue 23), on a running program whose
# functions hold known instructions: a probe inside the bytes another
# probe's 5-byte jmp replaces is refused (the kernel's BAD_INSN_BNDRY)
# and the program runs on (kprobe_insn_boundary.tc probed every offset of
# a function and the program died of the corrupted jmp); MODULE:SYMBOL
# places; p:...%return as r:; GRP/ and -:GRP/ (the whole group); !p:,
# !r:, !s: with the definition as written removing it; a probe defined
# again with another layout getting a new id; a faulting string printed
# (fault), as the kernel's; $argN on return probes (r: and f:...%return)
# the entry's arguments; README listing the places.
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
check "the first one records" trace_shows "$T/t1" ' first: ' 150
echo 0 >events/kp/first/enable
echo >kprobe_events
empty() { # FILE is read (the mount answers) and has nothing
	local c
	c=$(cat "$1") && test -z "$c"
}
check "the probes are removed" empty kprobe_events

# MODULE:SYMBOL, the kernel's module place: MODULE is an object's file name
echo 'p ks:func_seq x=%di:s64' >>kprobe_events
check "a probe at MODULE:SYMBOL (ks:func_seq) is added" test $? -eq 0
check "listed with its module, named as the kernel names it" \
	test "$(cat kprobe_events)" = 'p:kprobes/p_ks_func_seq_0 ks:func_seq x=%di:s64'
echo 1 >events/kprobes/p_ks_func_seq_0/enable
check "it records the calls" trace_shows "$T/t2" ' p_ks_func_seq_0: (func_seq+0x0/0x[0-9a-f]*) x=[0-9]'
echo 0 >events/kprobes/p_ks_func_seq_0/enable
echo 'p:kp/other libc.so.6:func_seq' >>kprobe_events 2>/dev/null
check "a module that does not define the symbol is refused" test $? -ne 0
check "with the kernel's BAD_PROBE_ADDR" errlog_is trace_kprobe \
	"Invalid probed address or symbol" "p:kp/other libc.so.6:func_seq" 11
echo >kprobe_events

# %return on a p: probe is a return probe: listed as r: is
echo 'r:myret func_seq' >kprobe_events
r1=$(cat kprobe_events)
echo 'p:myret func_seq%return' >kprobe_events
check "p:...%return lists as r: does ($r1)" test "$(cat kprobe_events)" = "$r1"
echo >kprobe_events

# GRP/ (the default event name) and -:GRP/ (the whole group)
echo 'p:grp/ func_seq' >>dynamic_events
echo 'r:grp/ func_seq' >>dynamic_events
check "p:GRP/ and r:GRP/ get the default names" \
	test "$(ls events/grp | tr '\n' ' ')" = "enable p_func_seq_0 r_func_seq_0 "
echo '-:grp/' >>dynamic_events
check "-:GRP/ removes every event of the group" empty dynamic_events
check "and the group's folder" test ! -d events/grp

# !TYPE:EVENT DEFINITION, the definition as written, removes it
echo "p:ev1 func_seq" >>dynamic_events
echo "s:lat1 u64 lat; pid_t pid;" >>dynamic_events
echo "r:ev2 func_seq" >>dynamic_events
echo "!p:ev1 main" >>dynamic_events 2>/dev/null
check "!p: with another point removes nothing (ENOENT)" test $? -ne 0 -a "$(grep -c . dynamic_events)" = 3
echo "!p:ev1 func_seq" >>dynamic_events
check "!p:EVENT POINT removes that probe" test "$(grep -c 'ev1\|ev2\|lat1' dynamic_events)" = 2
echo "!s:lat1 u64 lat; pid_t pid;" >>dynamic_events
check "!s:NAME FIELDS removes that synthetic event" test "$(grep -c 'ev2\|lat1' dynamic_events)" = 1
echo "!r:ev2 func_seq" >>dynamic_events
check "!r: the return probe" empty dynamic_events
echo 'wl  u64 lat pid_t pid char comm[16]' >>synthetic_events
echo '!wl  u64 lat pid_t pid char comm[16]' >>synthetic_events
check "synthetic_events' !NAME FIELDS removes it, the fields as written or not" \
	empty synthetic_events
# a probe defined again under a removed one's name, with another layout:
# a new id, its records decoded with its own format (kprobe_args_type.tc)
echo 'p:kp/ty func_seq x=%di:u64' >>kprobe_events
id1=$(cat events/kp/ty/id)
echo 1 >events/kp/ty/enable
trace_shows "$T/t3" ' ty: ' >/dev/null
echo 0 >events/kp/ty/enable
echo '-:kp/ty' >>kprobe_events
echo >trace
echo 'p:kp/ty func_seq x=%di:u16 y=%di:u16' >>kprobe_events
id2=$(cat events/kp/ty/id)
check "the redefined event has a new id ($id1, then $id2)" test -n "$id2" -a "$id1" != "$id2"
echo 1 >events/kp/ty/enable
check "its records come" trace_shows "$T/t4" ' ty: '
echo 0 >events/kp/ty/enable
grep ' ty: ' "$T/t4" >"$T/ty"
check "each is decoded with the new layout: x=N y=N, N < 50 ($(wc -l <"$T/ty") records)" \
	test -s "$T/ty" -a -z "$(grep -Ev ' ty: \(func_seq\+0x0/0x[0-9a-f]+\) x=([0-9]|[1-4][0-9]) y=\1$' "$T/ty")"
echo >kprobe_events
# a string that faults prints as the kernel's: (fault), unquoted; one
# that does not in quotes (kprobe_args_user.tc); func_seq's x is < 50
echo 'p:kp/fs func_seq s=+0(%di):string u=+0(%di):ustring t=\"lit"' >>kprobe_events
echo 1 >events/kp/fs/enable
check "a faulting string prints (fault), a good one \"lit\"" \
	trace_shows "$T/t5" ' fs: (func_seq+0x0/0x[0-9a-f]*) s=(fault) u=(fault) t="lit"$'
echo 0 >events/kp/fs/enable
echo >kprobe_events
# $argN on a return probe is the entry's argument: func_seq returns x + 10
echo 'r:kp/ra func_seq a=$arg1:s64 r=$retval:s64' >>kprobe_events
check "r: takes \$arg1" test $? -eq 0
echo 'f:kp/fa func_seq%return a=$arg1:s64 r=$retval:s64' >>dynamic_events
check "f:...%return takes \$arg1" test $? -eq 0
echo 1 >events/kp/enable
trace_shows "$T/t6" ' fa: ' >/dev/null
check "their records come" trace_shows "$T/t6" ' ra: '
echo 0 >events/kp/enable
check "each has a = the entry's x, r = x + 10 ($(grep -c ' ra: \| fa: ' "$T/t6") records)" \
	test -z "$(grep ' ra: \| fa: ' "$T/t6" | awk '{ a = $(NF - 1); r = $NF
		sub("a=", "", a); sub("r=", "", r); if (r != a + 10) print }')"
echo >dynamic_events
check "README says what return probes take" grep -qF 'kernel return probes support: $retval, $arg<N>, $comm' README
check "README lists the places taken" grep -qF 'place: [<module>:]<symbol>[+<offset>]' README
check "and the return probes'" grep -qF 'place (kretprobe): [<module>:]<symbol>[+<offset>]%return' README

cd / || exit 1
touch "$T/stop"
wait "$RP"
st=$?
RP=
check "the program ran through and ended well (status $st)" test "$st" -eq 0
exit 0
