#!/bin/bash
# tests/kernel/record_probes.sh BUILD_DIR - `utrace record --probe` and
# `-e usdt:PROVIDER:NAME` end to end: the recorded argument values equal
# what the program printed, and nothing is left in uprobe_events.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_uprobe_events
need_built "$U"
echo "#include <sys/sdt.h>" | cc -E -x c - >/dev/null 2>&1 || unsupported "no <sys/sdt.h> (systemtap-sdt-dev)"

T=$(mktemp -d) || exit 1
trap 'rm -rf "$T"' EXIT
cat >"$T/up.c" <<'PROG'
#include <stdio.h>
#include <sys/sdt.h>
__attribute__((noinline)) int add3(int a, int b, int c) { return a + b + c; }
int main(void)
{
	int s = 0;

	for (int i = 0; i < 3; i++) {
		s += add3(i, 10 * i, 100);
		DTRACE_PROBE2(app, step, i, s);
		printf("add3(%d, %d, 100) s=%d\n", i, 10 * i, s);
	}
	return 0;
}
PROG
cc -O1 -o "$T/up" "$T/up.c" || { notok "build the probed program"; exit 1; }

"$U" record --probe "p:add3 $T/up:add3 a=%di:s32 b=%si:s32" \
	--probe "r:add3r $T/up:add3 ret=\$retval:s32" -e usdt:app:step \
	-o "$T/up.dat" -- "$T/up" >"$T/out" 2>"$T/err" &
group=utrace_$!/ # in the background for its pid: its kernel probes' group
wait $!
check "record with --probe and -e usdt: exits 0" test $? -eq 0
"$U" report -i "$T/up.dat" >"$T/rep" 2>&1
for i in 0 1 2; do
	s=$(sed -n "s/^add3($i, [0-9]*, 100) s=//p" "$T/out")
	check "entry probe: a=$i b=$((10 * i)) as printed" grep -q "/\* add3: ([0-9a-f]*) a=$i b=$((10 * i)) \*/\$" "$T/rep"
	check "return probe: \$retval = $((i + 10 * i + 100))" \
		grep -q "/\* add3r: ([0-9a-f]* <- [0-9a-f]*) ret=$((i + 10 * i + 100)) \*/\$" "$T/rep"
	check "USDT app:step: arg1=$i arg2=$s as printed" grep -q "/\* step: ([0-9a-f]*) arg1=$i arg2=$s \*/\$" "$T/rep"
done
# only this recorder's group: other utrace sessions may run beside this test
check "nothing left in uprobe_events ($group)" eval '! grep -qF "$group" "$TR/uprobe_events"'
# up has no call sites: function_graph patches its functions' entries.
# The recording's own uprobe on add3 keeps add3's entry unpatched, by the
# plan (the file's bytes), not by what the process shows
check "the entry plan leaves add3 to the recording's kernel uprobe" \
	grep -q "1 left out.*1 a kernel uprobe of the recording in its first bytes" "$T/err"
check "so the runtime finds no changed entry bytes" eval '! grep -q "left unpatched" "$T/err"'

# A uprobe the recording did not make (as bpftrace's, another session's),
# enabled in an instance of this test's: the runtime sees its int3 in the
# process and leaves add3's entry alone, and the uprobe sees the 3 calls
sym=$(readelf -sW "$T/up" | awk '$8 == "add3" { print $2; exit }')
off=
while read -r _ o v _ fs _ flags; do # the executable PT_LOAD holding add3
	[[ $flags == *E* ]] && ((16#$sym >= v && 16#$sym < v + fs)) &&
		off=$(printf '0x%x' $((16#$sym - v + o)))
done < <(readelf -lW "$T/up" | grep '^ *LOAD')
grp=fpatch_test_$$
inst=$TR/instances/$grp
echo "p:$grp/add3 $T/up:$off" >>"$TR/uprobe_events" && mkdir "$inst" &&
	echo 1 >"$inst/events/$grp/add3/enable"
check "a foreign uprobe on add3 ($off) is enabled" grep -qx 1 "$inst/events/$grp/add3/enable"
"$U" record -o "$T/fg.dat" -- "$T/up" >/dev/null 2>"$T/fg.err"
check "record -p function_graph beside it exits 0" test $? -eq 0
check "the runtime leaves the entry under the foreign uprobe unpatched" \
	grep -q "$T/up: 1 function entry left unpatched" "$T/fg.err"
hits=$(grep -c " add3: (" "$inst/trace")
check "the foreign uprobe fired 3 times ($hits)" test "$hits" = 3
echo 0 >"$inst/events/$grp/add3/enable"
rmdir "$inst"
echo "-:$grp/add3" >>"$TR/uprobe_events"
check "the foreign uprobe is removed" eval '! grep -qF "$grp/" "$TR/uprobe_events"'

"$U" record --probe "p:x $T/up:add3 a=%foo" -- "$T/up" >/dev/null 2>"$T/bad"
rc=$?
check "bad --probe: the kernel's message with its column, exit 2 (got $rc)" \
	eval '[ $rc -eq 2 ] && grep -q "Invalid register name at column" "$T/bad"'
"$U" record -e usdt:app:nosuch -- "$T/up" >/dev/null 2>"$T/bad"
check "unknown USDT probe: one-line error" eval 'grep -q "no such USDT probe" "$T/bad"'
exit 0
