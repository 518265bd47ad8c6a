#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/kernel/uprobes.sh BUILD_DIR - dynamic probes through the kernel's
# uprobe_events, driven by lib/probes/uprobe.c and lib/probes/usdt.c (tests/kernel/
# uprobe_drv.c, linked with BUILD_DIR/libutrace-tool.a):
#
#   - a p: probe on a function with fetchargs ($argN for arguments 1-8,
#     a string behind a pointer, $comm, @GLOBAL): the values the kernel
#     recorded are the ones the program printed, call after call
#   - an r: probe with $retval: the value the function returned
#   - a USDT probe (<sys/sdt.h>) with a semaphore: it fires at both sites
#     of one provider:name with the arguments the program printed, the
#     semaphore is non-zero while attached (the kernel counts one per
#     uprobe: 2 here) and zero otherwise
#   - bad definitions: utrace's message and column are the kernel's
#     error_log message and caret, for every check both make
#   - a definition only the kernel refuses: its error_log entry comes back
#   - utrace_uprobe_remove_stale() removes utrace* groups only
#   - nothing is left in uprobe_events or instances/ afterwards
#
# Prints "ok - " / "not ok - " per check, or "UNSUPPORTED: reason" when
# uprobe_events is not there (a kernel without CONFIG_UPROBE_EVENTS, no
# root).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_uprobe_events
need_built "$B/libutrace-tool.a"

T=$(mktemp -d) || exit 1
cleanup() {
	# disable and remove whatever a failed check left
	for d in "$TR"/instances/utrace-test-*; do
		[ -d "$d" ] || continue
		echo 0 >"$d/events/enable" 2>/dev/null
		rmdir "$d" 2>/dev/null
	done
	if [ -n "${live:-}" ]; then
		kill "$live" 2>/dev/null
		echo "-:utrace_$live/x" >>"$TR/uprobe_events" 2>/dev/null
	fi
	grep -oE '^[pr]:(utrace_test|utrace_usdt|utrace_stale|other_group_t)[^ ]*' "$TR/uprobe_events" 2>/dev/null |
		cut -d: -f2 | sort -u | while read -r e; do
		echo "-:$e" >>"$TR/uprobe_events" 2>/dev/null
	done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM

CC=${CC:-cc}
DRV=$T/drv
if ! $CC -std=gnu11 -D_GNU_SOURCE -I"$ROOT" -o "$DRV" "$ROOT/tests/kernel/uprobe_drv.c" \
	"$B/libutrace-tool.a" -ltraceevent -ldw -lelf -lz -lstdc++ -ldl -lpthread -lm 2>"$T/drv.log"; then
	notok "uprobe_drv builds: $(head -n 3 "$T/drv.log")"
	exit 1
fi

HAVE_SDT=0
if echo '#include <sys/sdt.h>' | $CC -E -x c - >/dev/null 2>&1; then
	HAVE_SDT=1
fi
cat >"$T/target.c" <<'EOF'
/* target A B S C: calls compute() twice and prints, in the kernel's
 * format, the arguments it passes and what it returns; then hits the
 * USDT probe app:work at two sites, printing its arguments and its
 * semaphore. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if HAVE_SDT
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
unsigned short app_work_semaphore __attribute__((section(".probes")));
#endif

int counter = 1234;

__attribute__((noinline)) long compute(int a, long b, const char *s, unsigned char c, long d5,
				       long d6, long e7, long e8)
{
	__asm__ volatile("" ::: "memory");
	return a + b + s[0] + c + d5 + d6 + e7 + e8;
}

#if HAVE_SDT
static inline __attribute__((always_inline)) void work(int x, long y)
{
	DTRACE_PROBE3(app, work, x, y, counter);
}
#endif

int main(int argc, char **argv)
{
	int a = argc > 1 ? atoi(argv[1]) : 1;
	long b = argc > 2 ? atol(argv[2]) : 2, e7 = -7L * a, e8 = 8L << 32;
	const char *s = argc > 3 ? argv[3] : "str";
	unsigned char c = (unsigned char)(argc > 4 ? atoi(argv[4]) : 200);
	char comm[32] = "";
	FILE *f = fopen("/proc/self/comm", "r");

	if (f && fgets(comm, sizeof(comm), f))
		comm[strcspn(comm, "\n")] = 0;
	if (f)
		fclose(f);
	for (int i = 0; i < 2; i++) {
		long r;

		printf("entry: a=%d b=%ld s=\"%s\" c=%u e7=%ld e8=0x%lx cm=\"%s\" g=%d\n", a + i, b,
		       s, c, e7, e8, comm, counter);
		r = compute(a + i, b, s, c, 5, 6, e7, e8);
		printf("return: r=%ld\n", r);
		counter += 11;
	}
#if HAVE_SDT
	printf("usdt: arg1=%d arg2=%ld arg3=%d\n", a, b * 2, counter);
	printf("semaphore: %u\n", app_work_semaphore);
	work(a, b * 2);
	counter++;
	printf("usdt: arg1=%d arg2=%ld arg3=%d\n", a + 1, 7L, counter);
	work(a + 1, 7);
#endif
	return 0;
}
EOF
if ! $CC -O2 -DHAVE_SDT=$HAVE_SDT -o "$T/target" "$T/target.c" 2>"$T/target.log"; then
	notok "target builds: $(head -n 3 "$T/target.log")"
	exit 1
fi
P=$T/target
ARGS=(42 -9000000000 hello 200)

# --- p: with fetchargs, two calls --------------------------------------
ENTRY="p:utrace_test/compute $P:compute a=\$arg1:s32 b=\$arg2:s64 s=+0(\$arg3):string"
ENTRY+=" c=\$arg4:u8 e7=\$arg7:s64 e8=\$arg8:x64 cm=\$comm g=@counter:s32"
RET="r:utrace_test/ret $P:compute r=\$retval:s64"
if "$DRV" run -o "$T/trace" "$ENTRY" "$RET" -- "$P" "${ARGS[@]}" >"$T/out" 2>"$T/err"; then
	grep '^entry: ' "$T/out" | sed 's/^entry: //' >"$T/want.entry"
	sed -n 's/.* compute: ([^)]*) //p' "$T/trace" >"$T/got.entry"
	check "p: probe: 2 events with the arguments the program passed ($(head -n 1 "$T/got.entry"))" \
		eval '[ "$(wc -l <"$T/want.entry")" -eq 2 ] && cmp -s "$T/want.entry" "$T/got.entry"'
	grep '^return: ' "$T/out" | sed 's/^return: //' >"$T/want.ret"
	sed -n 's/.* ret: ([^)]*) //p' "$T/trace" >"$T/got.ret"
	check "r: probe: \$retval is what compute returned ($(head -n 1 "$T/got.ret"))" \
		eval '[ "$(wc -l <"$T/want.ret")" -eq 2 ] && cmp -s "$T/want.ret" "$T/got.ret"'
	off=$(sed -n 's/^probe: p:utrace_test\/compute [^ ]*:\(0x[0-9a-f]*\) .*/\1/p' "$T/out")
	nmoff=$(printf '0x%x' "0x$(nm "$P" | awk '$3 == "compute" { print $1 }')")
	want=$((nmoff - $(readelf -lW "$P" | awk '$1 == "LOAD" && $8 ~ /E/ { print $3 - $2; exit }')))
	check "the probe is at compute's file offset ($off, nm: $nmoff, a PIE's text at vaddr = offset)" \
		eval '[ -n "$off" ] && [ "$((off))" -eq "$want" ]'
else
	notok "p:/r: probes run: $(head -n 3 "$T/err")"
	off=
fi

# --- USDT with a semaphore -----------------------------------------------
if [ "$HAVE_SDT" = 1 ]; then
	if "$DRV" run -o "$T/trace.usdt" "usdt:$P:app:work" -- "$P" "${ARGS[@]}" >"$T/out.usdt" \
		2>"$T/err"; then
		sed -n 's/^usdt: //p' "$T/out.usdt" >"$T/want.usdt"
		sed -n 's/.* work: ([^)]*) //p' "$T/trace.usdt" >"$T/got.usdt"
		check "usdt:app:work: 2 sites, one event, arguments as printed ($(head -n 1 "$T/got.usdt"))" \
			eval '[ "$(grep -c "^probe:" "$T/out.usdt")" -eq 2 ] &&
			[ "$(wc -l <"$T/want.usdt")" -eq 2 ] && cmp -s "$T/want.usdt" "$T/got.usdt"'
		check "usdt:app:work: the probe has the semaphore as ref_ctr_offset" \
			grep -qE '^probe: p:utrace_usdt/work [^ ]*:0x[0-9a-f]+\(0x[0-9a-f]+\) arg1=' \
			"$T/out.usdt"
		check "usdt:app:work: the semaphore is non-zero while attached" \
			grep -qE '^semaphore: [1-9]' "$T/out.usdt"
	else
		notok "usdt: probe runs: $(head -n 3 "$T/err")"
	fi
	"$P" "${ARGS[@]}" >"$T/out.plain"
	check "the semaphore is zero when nothing is attached" grep -qx 'semaphore: 0' "$T/out.plain"
else
	echo "UNSUPPORTED: USDT checks: no <sys/sdt.h> (apt-get install systemtap-sdt-dev)"
fi

# --- bad definitions: the kernel's message and caret ---------------------
# The last error_log entry: "MESSAGE|COLUMN" (the caret, 1-based in CMD).
kernel_error() { # kernel_error DEFINITION
	if echo "$1" >>"$TR/uprobe_events" 2>/dev/null; then
		echo "-:$(echo "$1" | sed 's/^[pr]:\([^ ]*\).*/\1/')" >>"$TR/uprobe_events"
		echo "accepted"
		return
	fi
	tail -n 3 "$TR/error_log" | awk 'NR == 1 { sub(/.*error: /, ""); msg = $0 }
		NR == 3 { print msg "|" index($0, "^") - 11 }'
}
utrace_error() { # utrace_error DEFINITION
	"$DRV" parse "$1" | awk '/^error: / { sub(/^error: /, ""); sub(/ at column [0-9]+.*/, "");
		msg = $0 } /^column: / { print msg "|" $2 }'
}
if [ -n "$off" ]; then
	D="p:utrace_test/bad $P:$off"
	nest='+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(+0(%di)))))))))))))))'
	long_name=nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn
	bad=(
		"$D a=%foo" "$D a=+0(%di" "$D a=\$retval" "$D a=+0(%di):u8[300]"
		"$D a=%di:string" "$D a=\$comm:u8" "$D a=%di:b4@30/32" "p:1g/ev $P:$off"
		"$D a=\\\"abc" "$D a=+0(%di):u8[4]x" "$D common_pid=%di" "$D a=foo"
		"$D a=\$stackx" "$D a=@0xzz" "$D a=123" "$D a=%di:symbol" "$D a=$nest"
		"$D a=\\zz" "$D a=@+zz" "p:utrace_test/e-v $P:$off" "p:utrace_test/x $P:0x1g"
		"p:utrace_test/x $P:$off(zz)" "p:utrace_test/x $P:$off(0x4"
		"p:utrace_test/x $P:$off(0x4)x" "p:utrace_test/x $P:$off%ret"
		"p:utrace_test/x /nonexistent/x:0x10" "p:utrace_test/x /tmp:0x10"
		"$D =%di" "$D 1a=%di" "$D a=" "$D $long_name=%di" "$D a=+0(%di):u8[0]"
		"p: $P:$off" "p:/ev $P:$off" "$D a=%di a=%si" "$D a=+0(\$comm)" "$D a=+0()"
		"p:utrace_test/bad $P:$((off + 4)) a=\$arg1" "$D c=\\\"x\":u8"
		"$D$(printf ' %%ax%.0s' {1..129})"
	)
	same=0
	for def in "${bad[@]}"; do
		k=$(kernel_error "$def")
		u=$(utrace_error "$def")
		if [ -n "$u" ] && [ "$k" = "$u" ]; then
			same=$((same + 1))
		else
			notok "'$def': kernel says '$k', utrace '$u'"
		fi
	done
	check "bad definitions: utrace's message and column are the kernel's ($same of ${#bad[@]})" \
		[ "$same" -eq "${#bad[@]}" ]

	# Only the kernel can refuse these: its error_log entry comes back.
	echo "p:utrace_test/dup $P:$off a=%di:u32" >>"$TR/uprobe_events"
	"$DRV" register "r:utrace_test/dup $P:$off" >"$T/reg" 2>&1
	check "register: the kernel's refusal: $(head -n 1 "$T/reg")" \
		grep -qxF "error: uprobe_events: Probe type is different from existing probe at column 1 of 'r:utrace_test/dup $P:$off'" \
		"$T/reg"
	"$DRV" register "p:utrace_test/dup $P:$off b=%si:u64" >"$T/reg" 2>&1
	check "register: a second location needs the same arguments: $(head -n 1 "$T/reg")" \
		grep -q "^error: uprobe_events: Argument type or name is different from existing probe at column [0-9]" \
		"$T/reg"
	check "register: a second location of an event is taken" \
		eval '"$DRV" register "p:utrace_test/dup $P:$((off + 4)) a=%ax:u32" | grep -qx registered &&
		! grep -q utrace_test/dup "$TR/uprobe_events"'
fi

# --- remove_stale --------------------------------------------------------
if [ -n "$off" ]; then
	echo "p:utrace_stale/x $P:$off" >>"$TR/uprobe_events"
	echo "p:utrace_stale/y $P:$off" >>"$TR/uprobe_events"
	echo "p:other_group_t/z $P:$off" >>"$TR/uprobe_events" # not utrace's: stays
	# a group utrace_<pid> of a running utrace stays; which process runs
	# utrace is told by its program file, not its comm (a reused pid may
	# take any name): here a copy of bash whose file is named so
	cp "$(command -v bash)" "$T/utracefake"
	"$T/utracefake" -c 'sleep 30; :' &
	live=$!
	sleep 0.2
	echo "p:utrace_$live/x $P:$off" >>"$TR/uprobe_events"
	"$DRV" stale >"$T/stale" 2>&1
	check "remove_stale: removes the utrace* groups ($(cat "$T/stale"))" \
		eval '! grep -q "utrace_stale/" "$TR/uprobe_events" && grep -qE "^removed [2-9]" "$T/stale"'
	check "remove_stale: keeps utrace_<pid> of a running utrace" \
		grep -q "^p:utrace_$live/x " "$TR/uprobe_events"
	kill "$live" 2>/dev/null
	wait "$live" 2>/dev/null
	"$DRV" stale >/dev/null 2>&1
	check "remove_stale: removes utrace_<pid> once that utrace is gone" \
		eval '! grep -q "^p:utrace_$live/" "$TR/uprobe_events"'
	check "remove_stale: leaves other groups alone" grep -q "other_group_t/z" "$TR/uprobe_events"
	echo "-:other_group_t/z" >>"$TR/uprobe_events"
fi

check "nothing left in uprobe_events" eval '! grep -qE "utrace_test|utrace_usdt|utrace_stale" "$TR/uprobe_events"'
check "no utrace-test instance left" eval '! ls -d "$TR"/instances/utrace-test-* >/dev/null 2>&1'
exit 0
