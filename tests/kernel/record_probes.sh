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

"$U" record --probe "p:x $T/up:add3 a=%foo" -- "$T/up" >/dev/null 2>"$T/bad"
rc=$?
check "bad --probe: the kernel's message with its column, exit 2 (got $rc)" \
	eval '[ $rc -eq 2 ] && grep -q "Invalid register name at column" "$T/bad"'
"$U" record -e usdt:app:nosuch -- "$T/up" >/dev/null 2>"$T/bad"
check "unknown USDT probe: one-line error" eval 'grep -q "no such USDT probe" "$T/bad"'
exit 0
