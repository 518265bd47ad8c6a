# SPDX-License-Identifier: MIT
#
# tests/e2e/t/bt_ustack.sh - utrace bt's ustack, ustack(N), ustack(perf),
# func and usym() (lib/bt/bt_usym.c, runtime/stacktrace.c rt_stack_regs),
# in maps, printf("%s") and print(), at an entry and at a return
# on tests/e2e/anybin/bt_ustack.c, built with frame pointers: parse()
# reached nine times through level2() and once from level1(); the stacks
# of a probe at its entry skip the direct caller as the kernel's walk of
# a uprobe does.  Checked against the program's own disassembly (each
# frame's offset is the return address after its call), and against
# bpftrace's output for the same program on the same binary, attached
# with -p while the program waits, so that bpftrace names the frames
# (counts equal, stacks equal line for line, perf's addresses aside:
# utrace's preload moves the libraries).

e2e_once bt-ustack - check_bt_ustack
e2e_once bt-ustack-entry - check_bt_ustack_entry

# The offsets in function $2 of the instruction after each of its calls
# to $3, in the binary $1 (a frame's return address as symbol+offset).
bt_ret_off() {
	objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" -v c="<$3>" '
		$2 == f { on = 1; base = strtonum("0x" $1); next }
		on && /^$/ { exit }
		on && want { a = $1; sub(":", "", a); print strtonum("0x" a) - base; want = 0 }
		on && $2 == "call" && $NF == c { want = 1 }'
}

check_bt_ustack() {
	local d=$OUT/bt-ustack prog want1 want9 got l1 m1 bt
	bt='uprobe:PROG:parse /arg0 > 10/ { @[ustack] = count(); @n[ustack(2)] = count();
		@p[ustack(perf)] = count(); @f[func] = count(); @u[usym(arg0)] = count(); }
		uprobe:PROG:parse /arg0 == 120/ { printf("[%s|%d]\n", ustack(3), arg0); print(ustack(perf)); }
		uretprobe:PROG:level2 { @r[ustack] = count(); }
		uprobe:PROG:done { exit(); }'
	rm -rf "$d"
	mkdir -p "$d/w"
	prog=$d/bt_ustack
	if ! gcc -O1 -g -fno-omit-frame-pointer -o "$prog" "$E2E/anybin/bt_ustack.c" >"$d/cc.log" 2>&1; then
		nok "bt-ustack builds" "$(head -5 "$d/cc.log")"
		return
	fi
	bt=${bt//PROG/$prog}
	touch "$d/w/go" "$d/w/stop"
	timeout "$TMO" "$UTRACE" bt -e "$bt" -o "$d/bt.out" -c "$prog $d/w" >"$d/prog.out" 2>"$d/bt.err"
	t $? "bt-ustack utrace bt runs" "$(head -5 "$d/bt.err")"
	l1=$(bt_ret_off "$prog" level1 level2)
	# the compiler may copy main's call to level1: the one that ran
	m1=$(grep -o '^    main+[0-9]*$' "$d/bt.out" | head -1 | cut -d+ -f2)
	bt_ret_off "$prog" main level1 | grep -qx "${m1:-none}" || m1="not $(bt_ret_off "$prog" main level1)"
	# @[ustack]: parse's entry, then the %rbp chain (level2 skipped)
	want9=$(printf '    %s\n' parse+0 "level1+$l1" "main+$m1")
	want1=$(printf '    %s\n' parse+0 "main+$m1")
	got=$(awk '/^@\[$/ { on = 1; s = ""; next } on && /^\]: / { print s "=" $2; on = 0 }
		on && !/__libc_start_call_main/ { s = s $0 "|" }' "$d/bt.out" | sort)
	t "$([ "$got" = "$(printf '%s=1\n%s=9\n' "$(echo "$want1" | tr '\n' '|')" \
		"$(echo "$want9" | tr '\n' '|')" | sort)" ]; echo $?)" \
		"bt-ustack @[ustack] = count(): two stacks, 9 and 1 hits, frames at the disassembly's return addresses" \
		"want: $(echo $want9) / $(echo $want1)" "got: $got" "$(head -30 "$d/bt.out")"
	t "$(grep -q '^    __libc_start_call_main+[0-9]*$' "$d/bt.out" &&
		grep -qx '@f\[parse\]: 10' "$d/bt.out" && grep -qx '@u\[0xb\]: 1' "$d/bt.out" &&
		[ "$(awk '/^@n\[$/ { on = 1; n = 0; next } on && /^\]/ { print n; on = 0 } on { n++ }' \
			"$d/bt.out" | sort -u)" = 2 ] &&
		grep -q "^	[0-9a-f]* level1+$l1 ($prog)$" "$d/bt.out"; echo $?)" \
		"bt-ustack libc named from its debug file; func, usym(), ustack(2), ustack(perf)" \
		"$(head -60 "$d/bt.out")"
	if ! command -v bpftrace >/dev/null; then
		echo "ok - bt-ustack same maps as bpftrace's # SKIP no bpftrace"
		return
	fi
	rm -f "$d/w/go" "$d/w/stop"
	"$prog" "$d/w" >"$d/bp-prog.out" 2>&1 &
	local pid=$! i
	__BPFTRACE_NOTIFY_PROBES_ATTACHED=1 timeout "$TMO" bpftrace -p "$pid" -e "$bt" \
		>"$d/bpftrace.out" 2>"$d/bpftrace.err" &
	local bpid=$!
	for i in $(seq 600); do
		grep -q __BPFTRACE_NOTIFY_PROBES_ATTACHED "$d/bpftrace.err" 2>/dev/null && break
		kill -0 "$bpid" 2>/dev/null || break
		sleep 0.1
	done
	touch "$d/w/go"
	wait "$bpid"
	touch "$d/w/stop"
	wait "$pid"
	if ! grep -q '^@\[' "$d/bpftrace.out"; then
		echo "ok - bt-ustack same maps as bpftrace's # SKIP bpftrace does not run here"
		return
	fi
	# perf lines without their address; @u (hash order in bpftrace) sorted
	bt_ustack_norm() { grep -v -e '^$' -e '^Attaching' "$1" | sed 's/^\t[0-9a-f]* /\t/' |
		awk '/^@u\[/ { u[n++] = $0; next } { print } END { for (i = 0; i < n; i++) print u[i] | "sort" }'; }
	bt_ustack_norm "$d/bpftrace.out" >"$d/bpftrace.norm"
	bt_ustack_norm "$d/bt.out" >"$d/bt.norm"
	diff -u "$d/bpftrace.norm" "$d/bt.norm" >"$d/bpftrace.diff"
	t $? "bt-ustack same maps and printf/print of stacks as bpftrace's (stacks, counts, func, usym)" \
		"$(head -30 "$d/bpftrace.diff")"
}

# A probe on a function's push %rbp (built -O0: every function makes its
# frame): its caller is on the stack, read at %rsp, as Linux 6.11+ gives
# bpftrace (perf_callchain_user's uprobe at a function's entry); the
# -O1 build above has parse() without a frame, whose caller is skipped.
# main() calls level1(20): parse() runs 20 times from level2(), once
# from level1().
check_bt_ustack_entry() {
	local d=$OUT/bt-ustack-entry prog l2 l1 got
	rm -rf "$d"
	mkdir -p "$d"
	prog=$d/bt_ustack0
	if ! gcc -O0 -g -fno-omit-frame-pointer -o "$prog" "$E2E/anybin/bt_ustack.c" >"$d/cc.log" 2>&1; then
		nok "bt-ustack-entry builds" "$(head -5 "$d/cc.log")"
		return
	fi
	objdump -d "$prog" | grep -A1 '<parse>:$' | grep -q 'push *%rbp' ||
		{ echo "ok - bt-ustack-entry # SKIP parse() does not start with push %rbp"; return; }
	timeout "$TMO" "$UTRACE" bt -e "uprobe:$prog:parse { @[ustack(3)] = count(); }" \
		-o "$d/bt.out" -c "$prog" >"$d/prog.out" 2>"$d/bt.err"
	l2=$(bt_ret_off "$prog" level2 parse)
	l1=$(bt_ret_off "$prog" level1 parse)
	got=$(tr -d ' ' <"$d/bt.out" | awk '/^@\[$/ { on = 1; s = ""; next }
		on && /^\]:/ { print s $0; on = 0 } on { s = s $0 "|" }' | sort)
	t "$([ "$got" = "$(printf 'parse+0|level1+%s|main+%s|]:1\nparse+0|level2+%s|level1+%s|]:20\n' \
		"$l1" "$(bt_ret_off "$prog" main level1 | head -1)" "$l2" \
		"$(bt_ret_off "$prog" level1 level2)" | sort)" ]; echo $?)" \
		"bt-ustack-entry a probe at push %rbp has its caller from %rsp (level2, level1)" \
		"got: $got" "$(head -20 "$d/bt.out")"
}
