# SPDX-License-Identifier: MIT
#
# tests/e2e/t/lc-plain.sh - library calls (--libcall, runtime/plt.c), once
# (test name "libcall"): tests/progs/libcall.c and libcall_exc.cc built
# WITHOUT the flags by gcc and clang at -O0 and -O2, recorded with no option
# (--libcall is the default there); tests/e2e/libcall/plugin.c dlopen()ed;
# distribution binaries (sort, gzip -c, bash -c, python3 -c with threads):
# output and exit status identical to an untraced run, library calls named,
# the graph balanced (sort, gzip).

e2e_once libcall - libcall_checks

# libcall_plain NAME CMD...: CMD untraced and under plain `utrace record`
# in $d; same stdout, stderr and status; the report in $d/NAME.rep.
libcall_plain() {
	local name=$1 ust tst
	shift
	(cd "$d" && timeout -k 5 "$TMO" "$@" >"$d/$name.u.out" 2>"$d/$name.u.err" </dev/null)
	ust=$?
	(cd "$d" && timeout -k 5 "$TMO" "$UTRACE" record -o "$d/$name.dat" -- "$@" \
		>"$d/$name.t.out" 2>"$d/$name.t.err" </dev/null)
	tst=$?
	grep -v '^utrace record:' "$d/$name.t.err" >"$d/$name.t.err.prog"
	if [ "$ust" = "$tst" ] && cmp -s "$d/$name.u.out" "$d/$name.t.out" &&
		cmp -s "$d/$name.u.err" "$d/$name.t.err.prog"; then
		ok "libcall $name: output and status ($ust) unchanged"
	else
		nok "libcall $name: output and status unchanged" "status $ust vs $tst" \
			"$(diff "$d/$name.u.out" "$d/$name.t.out" | head -5)" "$(tail -3 "$d/$name.t.err")"
	fi
	timeout -k 5 "$TMO" "$UTRACE" report -O funcgraph-proc -i "$d/$name.dat" >"$d/$name.rep" 2>"$d/$name.rep.err" ||
		nok "libcall $name report" "$(head -3 "$d/$name.rep.err")"
	REP=$d/$name.rep
	FACTS=$d/$name.facts
	awk -f "$E2E/graph.awk" "$REP" >"$FACTS"
}

libcall_checks() {
	local d=$OUT/libcall cc opt
	rm -rf "$d"
	mkdir -p "$d"
	for cc in gcc clang; do
		command -v $cc >/dev/null || continue
		for opt in -O0 -O2; do
			CFG="$cc$opt"
			TEST=plain
			if ! $cc $opt -o "$d/lc$cc$opt" "$PROGS/libcall.c" -lm 2>"$d/build.err"; then
				nok "libcall $CFG build" "$(head -3 "$d/build.err")"
				continue
			fi
			libcall_plain "$CFG" "$d/lc$cc$opt"
			# built without utrace's flags: its own functions are patched at
			# their entry (func_patch) and its library calls hooked, nested
			# under them
			grep -q 'functions patched at their entry' "$d/$CFG.t.err" ||
				nok "libcall $CFG: the recorder says the program's functions were patched" "$(cat "$d/$CFG.t.err")"
			expect_func "libcall $CFG main, patched at its entry" main count 1 depth 0
			expect_balanced "libcall $CFG braces balance" open-ok
			expect_func "libcall $CFG printf" printf count 3
			expect_func "libcall $CFG qsort's callback's strlen nested in qsort, under main" strlen mincount 4 maxd 3
			expect_func "libcall $CFG qsort" qsort count 1
			expect_func "libcall $CFG pow (doubles), in main and a thread" pow count 2
			expect_func "libcall $CFG longjmp" longjmp count 1
			expect_func "libcall $CFG exit" exit count 1
		done
	done
	for cc in g++ clang++; do
		command -v $cc >/dev/null || continue
		for opt in -O0 -O2; do
			CFG="$cc$opt"
			if ! $cc $opt -o "$d/lcx$cc$opt" "$PROGS/libcall_exc.cc" 2>"$d/build.err"; then
				nok "libcall $CFG build" "$(head -3 "$d/build.err")"
				continue
			fi
			libcall_plain "$CFG" "$d/lcx$cc$opt"
			expect_balanced "libcall $CFG braces balance" open-ok
			expect_func "libcall $CFG exceptions from inside library calls" \
				std::__throw_out_of_range_fmt count 3
			expect_func "libcall $CFG __cxa_throw" __cxa_throw count 3
			expect_func "libcall $CFG printf after the catches" printf mincount 5
			expect_func "libcall $CFG pthread_exit" pthread_exit count 1
		done
	done
	CFG=plugin
	if gcc -O2 -fPIC -shared -o "$d/libplugin.so" "$E2E/libcall/plugin.c" 2>"$d/build.err" &&
		gcc -O2 -I"$PROGS" -o "$d/dlopen" "$PROGS/dlopen.c" -ldl 2>>"$d/build.err"; then
		libcall_plain plugin "$d/dlopen"
		expect_balanced "libcall plugin braces balance"
		expect_func "libcall plugin: the program's dlopen" dlopen count 2
		expect_func "libcall plugin: the plugin's calls, hooked at each dlopen" snprintf count 2
		expect_func "libcall plugin: strlen too" strlen count 2
	else
		nok "libcall plugin build" "$(head -3 "$d/build.err")"
	fi
	CFG=dist
	printf '%s\n' pear apple fig banana apple >"$d/words.txt"
	libcall_plain sort sort "$d/words.txt"
	expect_balanced "libcall sort braces balance" open-ok
	expect_func "libcall sort: its library calls named (setlocale)" setlocale mincount 1
	seq 1 2000 >"$d/nums.txt"
	libcall_plain gzip gzip -c "$d/nums.txt"
	expect_balanced "libcall gzip braces balance" open-ok
	has_func write || has_func fwrite || has_func __write_chk ||
		nok "libcall gzip writes through a library call" "no write/fwrite in $REP"
	has_func write || has_func fwrite || has_func __write_chk && ok "libcall gzip writes through a library call"
	# a shell that forks, execs and pipes; an interpreter with threads
	libcall_plain bash bash -c 'for i in 3 1 2; do echo $i; done | sort; /bin/true'
	expect_func "libcall bash: fork named" fork mincount 1
	if [ -x /usr/bin/python3 ]; then # the package's, not a wrapper found first in PATH
		libcall_plain python3 /usr/bin/python3 -c 'import threading; t = [threading.Thread(target=sum, args=(range(10000),)) for _ in range(4)]; [x.start() for x in t]; [x.join() for x in t]; print("ok")'
		expect_func "libcall python3: pthread_create named" pthread_create count 4
	fi
}
