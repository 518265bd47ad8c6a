#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/late_bind.sh - runtime/late_bind.c, as the program sees
# it: an attached process's GOT slots of the runtime's interposers lead to
# libutrace.so while attached (swapcontext's, bound to libc's before; and
# clone's, still lazy, or bound at start with -z now, its GOT then
# read-only: RELRO), and back where they were after each detach, for two
# attaches in a row (progs/late_bind.c prints where its slots lead each
# time that changes).  A library whose text relocation names clone cannot
# be bound: the attach says so and stops, the program runs on untouched.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)" != 0 ]; then
	unsupported "record -P: no permission to attach (ptrace_scope)"
	exit 0
fi

# attach_twice OUT EXE [ARGS]: EXE started, attached to for a second
# FILE has N lines or more now (counted again at each try of until_ok)
lines_at_least() { test "$(grep -c . "$1")" -ge "$2"; }
# twice, then stopped; OUT.out its lines, OUT.rc its status, OUT.rec1/2
attach_twice() {
	local o=$1 p
	shift
	rm -f "$o.stop"
	"$@" "$o.stop" >"$o.out" 2>"$o.err" &
	p=$!
	until_ok 300 test -s "$o.out"
	for i in 1 2; do
		timeout -k 5 "${HOSTILE_LIMIT:-120}" "$U" record -P $p --duration 1 -o "$o.dat" \
			>"$o.rec$i" 2>&1
		# the detached line comes within the program's 2 ms poll
		until_ok 300 lines_at_least "$o.out" $((2 * i + 1))
	done
	touch "$o.stop"
	wait $p
	echo $? >"$o.rc"
}

# the program's own name: a lazy slot leads into it; libc: bound
for link in "" "-Wl,-z,now"; do
	name=lazy first="swapcontext libc.so.6 clone lb_lazy"
	[ -n "$link" ] && name=now first="swapcontext libc.so.6 clone libc.so.6"
	bound="swapcontext libutrace.so clone libutrace.so"
	# shellcheck disable=SC2086 # link is a list of flags
	build "lb_$name" late_bind.c gcc -O2 $link || continue
	o=$W/lb_$name
	attach_twice "$o" "$o"
	check "late binding ($name): the program exits 0" test "$(cat "$o.rc")" = 0
	want=$(printf '%s\n' "$first" "$bound" "$first" "$bound" "$first")
	# the attach rebinds the slots one after the other while the program
	# runs: a look between two writes sees one slot bound and not the
	# other (seen once under load).  Such a line is left out; a binding
	# that stayed half done would leave no "bound" line and still fail.
	if [ "$(awk '($2 == "libutrace.so") == ($4 == "libutrace.so")' "$o.out" | uniq)" = "$want" ]; then
		ok "late binding ($name): the slots lead to the runtime while attached, back after"
	else
		notok "late binding ($name): the slots lead to the runtime while attached, back after"
		sed 's/^/#   got: /' "$o.out"
		cat "$o.rec1" "$o.rec2" | sed 's/^/#   recorder: /'
	fi
done

# A text relocation of clone (in code, read-only): not bound, the attach
# stops with the reason, and the program's slots stay as they were.
cat >"$W/tr.c" <<'C'
void *tr_clone(void)
{
	void *p;

	__asm__("movabs $clone, %0" : "=r"(p));
	return p;
}
C
if gcc -shared -fPIC -o "$W/libtr.so" "$W/tr.c" -Wl,-z,notext 2>"$W/tr.build" &&
	build lb_tr late_bind.c gcc -O2 -Wl,--no-as-needed -L"$W" -ltr -Wl,-rpath,"$W"; then
	o=$W/lb_tr
	"$o" "$o.stop" >"$o.out" 2>"$o.err" &
	p=$!
	until_ok 300 test -s "$o.out"
	timeout -k 5 "${HOSTILE_LIMIT:-120}" "$U" record -P $p --duration 1 -o "$o.dat" >"$o.rec" 2>&1
	sleep 0.1
	touch "$o.stop"
	wait $p
	rc=$?
	check "a text relocation of clone: the attach says it cannot bind it" \
		grep -q "cannot bind the runtime's clone in $W/libtr.so (a relocation in read-only code): tracing is off" "$o.rec"
	check "a text relocation of clone: the program exits 0" test $rc = 0
	check "a text relocation of clone: no slot of the program was changed" \
		test "$(cat "$o.out")" = "swapcontext libc.so.6 clone lb_tr"
else
	unsupported "a library with a text relocation cannot be built ($(tail -1 "$W/tr.build"))"
fi
