# SPDX-License-Identifier: MIT
#
# tests/e2e/t/anybin-why.sh - programs built WITHOUT utrace cflags, traced
# by patching their function entries (lib/probes/func_patch.c,
# runtime/func_patch.c): anybin-why (once) tests/e2e/anybin/refuse.c: each
# refused or int3 function named with its reason, the others listed as
# patched, the traced run right
#
# anybin-sigtrap (once) tests/e2e/anybin/sigtrap.c: the program's own
# SIGTRAP handler (installed after ours, on its sigaltstack), SIGTRAP
# blocked and ignored, errno
#
# anybin-dlopen (once) tests/e2e/anybin/dlthreads.c: a library without flags
# dlopen()ed while 4 threads run, called from all
#
# anybin-gotcall (once) gotcall.c: --libcall into patched entries, once
#
# anybin-bt (once) tests/e2e/anybin/bt.c: backtrace() from a callee that
# returns into a detour slot sees every frame

e2e_once anybin-why anybin check_anybin_why

check_anybin_why() {
	local d=$OUT/anybin want
	mkdir -p "$d"
	CFG=anybin RUN=$d
	if ! gcc -O2 -o "$d/refuse" "$E2E/anybin/refuse.c" >"$d/cc.log" 2>&1; then
		nok "anybin-why builds" "$(head -5 "$d/cc.log")"
		return
	fi
	"$UTRACE" list -f "$d/refuse" --why >"$d/why.txt" 2>"$d/why.err"
	want=$(printf '%s\t%s\n' tiny "int3: shorter than the 5 bytes of a jmp" \
		loop_head "int3: a branch lands inside its first 5 bytes" \
		second "int3: a branch lands inside its first 5 bytes" \
		spin_entry "a branch lands inside its first 5 bytes")
	# the C start-up files may add functions of their own: only ours
	t "$([ "$(grep -E '^(tiny|loop_head|second|spin_entry|jumper|main|plain)	' "$d/why.txt" | sort)" = \
		"$(echo "$want" | sort)" ]; echo $?)" \
		"anybin-why list -f --why names each refused or int3 function and its reason" \
		"$(cat "$d/why.txt" "$d/why.err")"
	"$UTRACE" list -f --why "$d/refuse" >"$d/why2.txt" 2>&1
	t "$(grep -v '^utrace list: ' "$d/why2.txt" | cmp -s - "$d/why.txt"; echo $?)" \
		"anybin-why the issue's spelling, list -f --why PROG, lists the same" \
		"$(head -3 "$d/why2.txt")"
	"$UTRACE" list -f "$d/refuse" >"$d/list.txt" 2>&1
	t "$([ "$(grep -xE 'tiny|loop_head|second|spin_entry|jumper|main|plain' "$d/list.txt" | sort | tr '\n' ' ')" = \
		"jumper loop_head main plain second tiny " ]; echo $?)" \
		"anybin-why list -f lists the patched ones, int3 ones included" "$(cat "$d/list.txt")"
	anybin_run anybin-why "$d/refuse"
	expect_balanced "anybin-why graph balanced"
	t "$(grep -qE "[0-9]+ of [0-9]+ functions patched at their entry \(3 with int3, where a jmp is not safe\); 1 left out .*: 1 a branch lands" \
		"$RES/t.err"; echo $?)" \
		"anybin-why the recorder counts patched, int3 and left-out functions, with reasons" \
		"$(head -3 "$RES/t.err")"
	expect_func "anybin-why patched functions traced" plain count 1
	expect_func "anybin-why tail-called function traced" jumper count 1
	expect_func "anybin-why int3 entry (3 bytes) traced" tiny count 1 depth 2
	expect_func "anybin-why int3 entry (loop to byte 2) traced once" loop_head count 1
	t "$(if has_func spin_entry; then echo 1; else echo 0; fi)" \
		"anybin-why refused entry not traced" "spin_entry: $(fv spin_entry count) calls"
	check_anybin_sigtrap "$d"
	check_anybin_dlopen "$d"
	# backtrace() through a slot: the same frames as untraced
	if gcc -O2 -o "$d/bt" "$E2E/anybin/bt.c" >"$d/cc.log" 2>&1; then
		anybin_run anybin-bt "$d/bt"
	else
		nok "anybin-bt builds" "$(head -5 "$d/cc.log")"
	fi
}

# tests/e2e/anybin/sigtrap.c: the program's SIGTRAP handler, installed
# after the runtime's, its sigaltstack, its masks and errno, untouched by
# the int3 entries (runtime/trap_guard.c).
check_anybin_sigtrap() {
	local d=$1
	if ! gcc -O2 -o "$d/sigtrap" "$E2E/anybin/sigtrap.c" -pthread >"$d/cc.log" 2>&1; then
		nok "anybin-sigtrap builds" "$(head -5 "$d/cc.log")"
		return
	fi
	ANYBIN_ROPTS=--no-libcall anybin_run anybin-sigtrap "$d/sigtrap"
	t "$(grep -q "2 with int3" "$RES/t.err" &&
		grep -qx "handler: 2 traps, 1 from int3, 0 off its stack, sum 4" "$RES/t.out"; echo $?)" \
		"anybin-sigtrap the program gets its own SIGTRAPs only, on its sigaltstack" \
		"$(cat "$RES/t.out" "$RES/t.err" | head -8)"
	expect_func "anybin-sigtrap int3 entries traced with SIGTRAP blocked and ignored" nothing count 15
}

# tests/e2e/anybin/dlthreads.c: a library without flags dlopen()ed and
# selected while four threads run (and one its constructor started runs
# inside it), its entries int3 first and their jmps
# written once no thread is in the way (UTRACE_KPROBE_DEBUG=1 says so);
# gotcall.c: --libcall with that library linked and selected, a call
# through the GOT into a patched entry recorded once.
check_anybin_dlopen() {
	local d=$1 lib
	lib=$d/libdlt.so
	if ! { gcc -O2 -fPIC -shared -o "$lib" "$E2E/anybin/dlthreads_lib.c" &&
		gcc -O2 -o "$d/dlthreads" "$E2E/anybin/dlthreads.c" -pthread -ldl &&
		gcc -O2 -o "$d/gotcall" "$E2E/anybin/gotcall.c" -L"$d" -ldlt -Wl,-rpath,"$d"; } \
		>"$d/cc.log" 2>&1; then
		nok "anybin-dlopen builds" "$(head -5 "$d/cc.log")"
		return
	fi
	UTRACE_KPROBE_DEBUG=1 ANYBIN_ROPTS="-l *:mod:libdlt.so" \
		anybin_run anybin-dlopen "$d/dlthreads" "$lib"
	expect_balanced "anybin-dlopen graph balanced in every thread"
	expect_func "anybin-dlopen library called from every thread, each call once" dl_work count 800
	expect_func "anybin-dlopen 4-byte int3 entry, each call once" dl_add count 8000
	# dl_mix: 8000 from the four, and those of the library's own thread
	# (500000) made after its entry was patched
	t "$(awk -v c="$(fv dl_mix count)" 'BEGIN { exit !(c >= 8000 && c <= 508000) }'; echo $?)" \
		"anybin-dlopen jmp entry, each call at most once" "dl_mix: $(fv dl_mix count) calls"
	t "$(grep -q "libdlt.so has no call sites: 6 of 6 functions patched at their entry (1 with int3" "$RES/t.err" &&
		grep -qE "[1-9][0-9]* jump-optimised with threads running" "$RES/t.err"; echo $?)" \
		"anybin-dlopen entries int3 first, jmps once no thread is in the way" "$(head -5 "$RES/t.err")"
	ANYBIN_ROPTS="--libcall -l *:mod:libdlt.so -l main" anybin_run anybin-gotcall "$d/gotcall"
	# (the thread libdlt.so's constructor starts is traced from its start,
	# libutrace.so being initialized first; it may still run dl_busy when
	# main returns and ends it: its frames may stay open, nothing else)
	expect_balanced "anybin-gotcall graph balanced" open-ok
	expect_func "anybin-gotcall call through the GOT into a jmp entry recorded once" dl_work count 3 depth 1
	expect_func "anybin-gotcall call through the GOT into an int3 entry recorded once" dl_add count 31
}
