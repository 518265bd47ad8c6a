# SPDX-License-Identifier: MIT
#
# tests/e2e/t/tool.sh - the tool's own behaviour, once (test name "tool"):
# utrace cflags, one-line usage errors, exit statuses passed on, list -f,
# record's warnings and errors before anything runs, a recorder stopped by
# SIGSTOP (no-loss mode gives up), report of a cut trace file

e2e_once tool - tool_checks

tool_checks() {
	local d=$OUT/tool out st n
	rm -rf "$d"
	mkdir -p "$d"
	cd "$d" || return
	tool_help_pages
	tool_exit_codes

	out=$("$UTRACE" cflags 2>&1)
	case " $out " in
	*" -fpatchable-function-entry=5 "*) ok "tool cflags (patchable)" ;;
	*) nok "tool cflags (patchable)" "utrace cflags printed '$out'" ;;
	esac
	out=$("$UTRACE" cflags --cc gcc --mcount 2>&1)
	# gcc's __mcount_loc records get utrace's assembler fix (-B .../gcc-as/)
	# (and -I for utrace's headers when they are beside the tool)
	out=$(echo $out | sed 's| -I[^ ]*$||')
	if [ "$(echo $out | sed 's| -B[^ ]*/gcc-as/$||')" = "$MCOUNT_FLAGS" ] &&
		[ -x "$(echo $out | sed -n 's|.* -B\([^ ]*/gcc-as/\)$|\1|p')as" ]; then
		ok "tool cflags --mcount"
	else
		nok "tool cflags --mcount" "printed '$out'" "expected '$MCOUNT_FLAGS'"
	fi
	if "$UTRACE" cflags --cc clang --mcount >/dev/null 2>"$d/err"; then
		nok "tool cflags --cc clang --mcount refused" "exit 0, clang has no -mnop-mcount"
	else
		ok "tool cflags --cc clang --mcount refused"
	fi

	# one-line errors and a non-zero status for bad usage
	bad_usage() { # bad_usage WHAT ARGS...
		local what=$1
		shift
		"$UTRACE" "$@" >"$d/out" 2>"$d/err" </dev/null
		st=$?
		n=$(wc -l <"$d/err")
		if [ "$st" -ne 0 ] && [ "$st" -lt 128 ] && [ "$n" -eq 1 ]; then
			ok "tool $what: one-line error, status $st"
		else
			nok "tool $what: one-line error" "status $st, $n lines on stderr:" "$(head -5 "$d/err")"
		fi
	}
	bad_usage "record --no-such-option" record --no-such-option -- /bin/true
	bad_usage "record -p no-such-tracer" record -p no-such-tracer -o "$d/x.dat" -- /bin/true
	bad_usage "record --max-graph-depth abc" record --max-graph-depth abc -o "$d/x.dat" -- /bin/true
	bad_usage "report -i missing file" report -i "$d/does-not-exist.dat"
	bad_usage "unknown command" no-such-command
	bad_usage "stat --bogus" stat --bogus -- /bin/true
	bad_usage "extract --bogus" extract --bogus
	"$UTRACE" extract --bogus 2>"$d/err"
	t "$(grep -q "unknown option '--bogus'" "$d/err"; echo $?)" "tool extract --bogus names the option" \
		"$(cat "$d/err")"
	# a selection that cannot select anything is refused, not an empty report
	"$UTRACE" record -o "$d/cpu.dat" -- /bin/true >/dev/null 2>&1
	"$UTRACE" report -i "$d/cpu.dat" --cpu 4000 >/dev/null 2>"$d/err"
	t "$([ $? = 1 ] && grep -q 'the trace has CPU' "$d/err"; echo $?)" \
		"tool report --cpu beyond the trace's CPUs refused" "$(cat "$d/err")"
	"$UTRACE" report -i "$d/cpu.dat" -r 5ms~2ms >/dev/null 2>"$d/err"
	t "$([ $? = 2 ] && grep -q 'the start is after the end' "$d/err"; echo $?)" \
		"tool report -r with the end before the start refused" "$(cat "$d/err")"
	# list -f PROGRAM finds it where record -- PROGRAM runs it ($PATH),
	# not in the current directory
	cp /bin/true "$d/sort"
	(cd "$d" && "$UTRACE" list -f sort >"$d/l1" 2>&1)
	"$UTRACE" list -f "$(command -v sort)" >"$d/l2" 2>&1
	t "$(cmp -s "$d/l1" "$d/l2"; echo $?)" "tool list -f PROGRAM is looked up in \$PATH" \
		"$(diff "$d/l1" "$d/l2" | head -3)"
	rm -f "$d/sort"
	# the file as an operand, as trace-cmd report FILE; options after it too
	"$UTRACE" report -i "$d/cpu.dat" --profile >"$d/r1" 2>&1
	"$UTRACE" report "$d/cpu.dat" --profile >"$d/r2" 2>&1
	t "$([ -s "$d/r1" ] && cmp -s "$d/r1" "$d/r2"; echo $?)" "tool report FILE is report -i FILE" \
		"$(diff "$d/r1" "$d/r2" | head -3)"
	"$UTRACE" dump --chrome "$d/cpu.dat" >"$d/r2" 2>&1
	"$UTRACE" dump --chrome -i "$d/cpu.dat" >"$d/r1" 2>&1
	t "$([ -s "$d/r1" ] && cmp -s "$d/r1" "$d/r2"; echo $?)" "tool dump FILE is dump -i FILE" \
		"$(diff "$d/r1" "$d/r2" | head -3)"
	bad_usage "report -i FILE FILE" report -i "$d/cpu.dat" "$d/cpu.dat"
	# utrace info: from the file's index, as uftrace info lays it out
	"$UTRACE" info "$d/cpu.dat" >"$d/info" 2>&1
	t "$(grep -qx '# cmdline *: /bin/true' "$d/info" &&
		grep -qx "# number of cpus *: $(nproc --all)" "$d/info" &&
		grep -qx "# kernel version *: $(uname -s) $(uname -r) $(uname -m)" "$d/info" &&
		grep -qx '# finished *: yes (END record)' "$d/info" &&
		grep -q '^# thread *: [0-9]*/[0-9]*(true) written [1-9]' "$d/info"; echo $?)" \
		"tool info: command, CPUs, kernel, a thread, finished" "$(head -30 "$d/info")"
	bad_usage "info of a missing file" info "$d/no-such.dat"
	"$UTRACE" reocrd >/dev/null 2>"$d/err"
	t "$(grep -q "did you mean 'record'" "$d/err"; echo $?)" "tool a mistyped command gets the nearest" \
		"$(cat "$d/err")"
	# a refused number names the range that is accepted
	range_says "-b abc" "from 64 to" record -b abc -o "$d/x.dat" -- /bin/true
	range_says "-F main" "-l FUNC and -g FUNC select functions" record -F main -o "$d/x.dat" -- /bin/true
	range_says "-F 1x" "from 1 to" record -F 1x -o "$d/x.dat" -- /bin/true
	range_says "-F 0" "from 1 to" record -F 0 -o "$d/x.dat" -- /bin/true
	range_says "--call-graph fp without -F" "goes with -F HZ" record --call-graph fp -o "$d/x.dat" -- /bin/true
	range_says "-g -- without -F" "goes with -F HZ" record -g -o "$d/x.dat" -- /bin/true
	n=$("$UTRACE" record --help | sed -n 's/.*-T, --tid.*up to \([0-9]*\)).*/\1/p')
	range_says "-T given $((n + 1)) times (help: up to $n)" "at most $n " \
		record $(seq -f '-T %g' 1 $((n + 1))) -o "$d/x.dat" -- /bin/true

	"$UTRACE" record -o "$d/none.dat" -- "$d/no-such-program" >"$d/out" 2>"$d/err" </dev/null
	st=$?
	if [ "$st" -ne 0 ] && grep -q '^utrace record:' "$d/err"; then
		ok "tool record of a missing program fails (status $st)"
	else
		nok "tool record of a missing program fails" "status $st" "$(head -3 "$d/err")"
	fi

	"$UTRACE" record -o "$d/true.dat" -- /bin/true >"$d/out" 2>"$d/err" </dev/null
	st=$?
	if [ "$st" = 0 ] && "$UTRACE" report -i "$d/true.dat" >"$d/rep" 2>"$d/err2"; then
		ok "tool record of an uninstrumented program"
	else
		nok "tool record of an uninstrumented program" "record status $st" "$(head -3 "$d/err" "$d/err2")"
	fi
	t "$(grep -q 'bin/true has no call sites: [0-9]* of [0-9]* functions patched at their entry' "$d/err"; echo $?)" \
		"tool record says a program has no call sites and patches its entries" "$(cat "$d/err")"

	"$UTRACE" record -o "$d/sh.dat" -- /bin/sh -c 'exit 7' >"$d/out" 2>"$d/err" </dev/null
	st=$?
	t "$([ "$st" = 7 ]; echo $?)" "tool exit status of the command passed on (7)" "got $st"
	{ "$UTRACE" record -o "$d/sh2.dat" -- /bin/sh -c 'kill -TERM $$' >"$d/out" 2>"$d/err" </dev/null; } 2>/dev/null
	st=$?
	t "$([ "$st" = 143 ]; echo $?)" "tool death by SIGTERM passed on as 143" "got $st"

	local simple=$OUT/gcc-O0-patch/bin/simple
	[ -x "$simple" ] || simple=$(ls "$OUT"/*/bin/simple 2>/dev/null | head -1)
	if [ -n "$simple" ] && [ -x "$simple" ]; then
		"$UTRACE" list -f "$simple" >"$d/list" 2>"$d/err"
		st=$?
		local missing=""
		for f in main a b c; do
			grep -Eq "(^|[^A-Za-z0-9_])$f([^A-Za-z0-9_]|$)" "$d/list" || missing="$missing $f"
		done
		if [ "$st" = 0 ] && [ -z "$missing" ]; then
			ok "tool list -f simple"
		else
			nok "tool list -f simple" "status $st, missing:$missing" "$(head -5 "$d/list" "$d/err")"
		fi

		"$UTRACE" record -l 'nosuch*' -l main -o "$d/l.dat" -- "$simple" >/dev/null 2>"$d/l.err" </dev/null
		t "$(grep -q "^utrace record: -l 'nosuch\*' matched no function" "$d/l.err" &&
			! grep -q "'main' matched no" "$d/l.err"; echo $?)" \
			"tool record warns of a -l pattern that matches nothing, not of one that does" \
			"$(cat "$d/l.err")"

		# an event that exists nowhere: an error before anything runs
		"$UTRACE" record -e nosys:noev -o "$d/ne.dat" -- "$simple" >"$d/ne.out" 2>"$d/ne.err" </dev/null
		st=$?
		t "$([ "$st" = 2 ] && [ ! -s "$d/ne.out" ] &&
			grep -q '^utrace record: -e nosys:noev: no such event' "$d/ne.err"; echo $?)" \
			"tool record -e of no event: status 2, the program never ran" \
			"status $st, stdout $(wc -c <"$d/ne.out") bytes: $(cat "$d/ne.err")"
		# a bad trigger: the kernel's message and a caret under its column,
		# before anything runs
		local hprog=$OUT/${CONFIGS%% *}/bin/hist
		if [ -x "$hprog" ]; then
			"$UTRACE" record -e hist:hist_req -R 'hist:keys=id:vals=nosuch' -o "$d/hb.dat" \
				-- "$hprog" >"$d/hb.out" 2>"$d/hb.err" </dev/null
			st=$?
			t "$([ "$st" = 2 ] && [ ! -s "$d/hb.out" ] &&
				grep -qx "utrace record: -R: Couldn't find field: nosuch" "$d/hb.err" &&
				grep -qx '                    ^' "$d/hb.err"; echo $?)" \
				"tool record -R with a field the event lacks: the kernel's error, caret, nothing ran" \
				"status $st: $(cat "$d/hb.err")"
			"$UTRACE" record -e hist:hist_req -R 'hist:keys=id:sort=nosuch' -o "$d/hb.dat" \
				-- "$hprog" >"$d/hb.out" 2>"$d/hb.err" </dev/null
			st=$?
			t "$([ "$st" = 2 ] && grep -q "Sort field must be a key or a val" "$d/hb.err"; echo $?)" \
				"tool record -R with a bad sort key: the kernel's error" "status $st: $(cat "$d/hb.err")"
		fi
		# kernel events without access to tracefs: say so, before running
		if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
			mkdir -p "$d/nobody" && chmod 777 "$d/nobody"
			(cd "$d/nobody" && setpriv --reuid=65534 --regid=65534 --clear-groups \
				"$UTRACE" record -e sched:sched_switch -o "$d/nobody/k.dat" -- "$simple" \
				>"$d/nobody/out" 2>"$d/nobody/err" </dev/null)
			st=$?
			t "$([ "$st" = 2 ] && [ ! -s "$d/nobody/out" ] &&
				grep -q 'kernel events need access to tracefs' "$d/nobody/err"; echo $?)" \
				"tool record -e sched:sched_switch as a user: tracefs access said, nothing ran" \
				"status $st: $(cat "$d/nobody/err")"
			# list -e without PROGRAM: the kernel's events, as trace-cmd list -e
			"$UTRACE" list -e 'sched:sched_switch' >"$d/kl" 2>&1
			t "$([ "$(cat "$d/kl")" = sched:sched_switch ]; echo $?)" \
				"tool list -e SYSTEM:EVENT: the kernel's event" "$(head -3 "$d/kl")"
			"$UTRACE" list -e -F 'sched:sched_switch' >"$d/kl" 2>&1
			t "$(grep -qx 'name: sched_switch' "$d/kl" && grep -q 'field:char prev_comm' "$d/kl"; echo $?)" \
				"tool list -e -F: the kernel's format file" "$(head -3 "$d/kl")"
			# in the command's own words, with what to do
			(cd "$d/nobody" && setpriv --reuid=65534 --regid=65534 --clear-groups \
				"$UTRACE" sched-latency -- "$simple" >/dev/null 2>"$d/nobody/err" </dev/null)
			t "$(grep -q '^utrace sched-latency: needs the kernel.s sched events.*run as root' \
				"$d/nobody/err"; echo $?)" "tool sched-latency as a user: says it needs root" \
				"$(cat "$d/nobody/err")"
			(cd "$d/nobody" && setpriv --reuid=65534 --regid=65534 --clear-groups \
				"$UTRACE" record --probe "p:pr $simple:main" -o "$d/nobody/p.dat" -- "$simple" \
				>/dev/null 2>"$d/nobody/err" </dev/null)
			t "$(grep -q 'run as root' "$d/nobody/err"; echo $?)" \
				"tool record --probe PATH:SYM as a user: says it needs root" "$(cat "$d/nobody/err")"
		fi

		noloss_stopped_recorder
		# a cut trace file (a recorder killed mid-way) must not crash report
		"$UTRACE" record -o "$d/full.dat" -- "$simple" >/dev/null 2>"$d/full.err" </dev/null
		tool_pager "$d"
		tool_progress "$d"
		local size said
		size=$(stat -c %s "$d/full.dat" 2>/dev/null || echo 0)
		said=$(sed -n 's/.* saved to .* (\([0-9]*\) bytes)$/\1/p' "$d/full.err")
		t "$([ "$said" = "$size" ]; echo $?)" "tool record says the file's size ($size bytes)" \
			"record said ${said:-nothing}"
		if [ "$size" -gt 0 ]; then
			local cut bad=""
			for cut in 1 2 3 5 7; do
				head -c $((size * cut / 8)) "$d/full.dat" >"$d/cut.dat"
				{ timeout -k 5 "$TMO" "$UTRACE" report -i "$d/cut.dat" >"$d/cut.rep" 2>"$d/cut.err"; } 2>/dev/null
				st=$?
				[ "$st" -ge 124 ] && bad="$bad $cut/8 of the file: status $st;"
			done
			t "$([ -z "$bad" ]; echo $?)" "tool report of a cut trace file does not crash" "$bad"
		else
			nok "tool report of a cut trace file does not crash" "could not record $simple"
		fi
	fi
}

# No-loss mode must not hang a program on a recorder that saves nothing
# (here: stopped by SIGSTOP once the program is in its loop): the program
# waits UTRACE_RB_BLOCK_TIMEOUT_MS (1 s), then drops and counts as --drop
# does, and finishes while the recorder is still stopped.
noloss_stopped_recorder() {
	local d=$OUT/tool longrun rpid i size=0
	longrun=$(ls "$OUT"/*/bin/longrun 2>/dev/null | head -1)
	[ -n "$longrun" ] || return
	rm -f "$d/stop.done"
	"$UTRACE" record -b 64 -o "$d/stop.dat" -- /bin/sh -c \
		"'$longrun' 5000000 >/dev/null; touch '$d/stop.done'" >/dev/null 2>"$d/stop.err" </dev/null &
	rpid=$!
	# a file of 1 MB: longrun registered and is in its loop
	for i in $(seq 200); do
		size=$(stat -c %s "$d/stop.dat" 2>/dev/null || echo 0)
		[ "$size" -gt $((1 << 20)) ] && break
		sleep 0.05
	done
	kill -STOP "$rpid"
	for i in $(seq 300); do
		[ -e "$d/stop.done" ] && break
		sleep 0.1
	done
	kill -CONT "$rpid"
	wait "$rpid"
	t "$([ -e "$d/stop.done" ]; echo $?)" \
		"tool record (no-loss): a stopped recorder does not hang the program" \
		"longrun had not finished 30 s after the recorder was stopped ($size bytes then)"
	t "$(grep -Eq '^utrace record: [0-9]+ records \([1-9][0-9]* lost\)' "$d/stop.err"; echo $?)" \
		"tool record (no-loss): what a stopped recorder could not take is counted lost" \
		"$(head -3 "$d/stop.err")"
}

# range_says WHAT TEXT ARGS...: refused with TEXT in the error
range_says() {
	local what=$1 text=$2
	shift 2
	"$UTRACE" "$@" >/dev/null 2>"$OUT/tool/err" </dev/null
	t "$(grep -qF -- "$text" "$OUT/tool/err"; echo $?)" "tool record $what: the error says '$text'" \
		"$(head -2 "$OUT/tool/err")"
}

# utrace(1)'s exit statuses, over every command: --help 0, an unknown
# option or a missing value 2 with one line
tool_exit_codes() {
	local c bad= st n
	for c in $("$UTRACE" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p'); do
		"$UTRACE" "$c" --help >/dev/null 2>&1 || bad="$bad $c--help:$?"
		"$UTRACE" "$c" --no-such-option >/dev/null 2>"$OUT/tool/err" </dev/null
		st=$? n=$(wc -l <"$OUT/tool/err")
		[ "$st" = 2 ] && [ "$n" = 1 ] || bad="$bad $c--no-such-option:$st/$n"
	done
	for c in "report -i" "dump -o" "convert -o" "record -o" "stat -e" "info -i"; do
		# shellcheck disable=SC2086 # a command and its option
		"$UTRACE" $c >/dev/null 2>"$OUT/tool/err" </dev/null
		st=$? n=$(wc -l <"$OUT/tool/err")
		[ "$st" = 2 ] && [ "$n" = 1 ] || bad="$bad '$c':$st/$n"
	done
	t "$([ -z "$bad" ]; echo $?)" "tool exit statuses of utrace(1) over every command" "$bad"
}

# every command's --help points at its man page, never at a docs/ path
# that does not exist once installed
tool_help_pages() {
	local c bad=
	for c in $("$UTRACE" --help | sed -n '/^Commands:/,/^$/s/^  \([a-z-]*\) .*/\1/p'); do
		"$UTRACE" "$c" --help 2>&1 | grep -q 'docs/' && bad="$bad $c"
	done
	t "$([ -z "$bad" ]; echo $?)" "tool --help of every command names man pages, not docs/" "$bad"
}

# report and graph on a terminal (a pseudo terminal made by script(1))
# go through $UTRACE_PAGER; not with --no-pager, not on a pipe
tool_pager() {
	local d=$1 c
	command -v script >/dev/null || return 0
	for c in report graph; do
		rm -f "$d/paged"
		UTRACE_PAGER="cat >'$d/paged'" script -qec "'$UTRACE' $c -i '$d/full.dat'" /dev/null \
			>/dev/null 2>&1
		t "$(grep -q 'main' "$d/paged" 2>/dev/null; echo $?)" "tool $c on a terminal goes through the pager"
		rm -f "$d/paged"
		UTRACE_PAGER="cat >'$d/paged'" script -qec "'$UTRACE' $c --no-pager -i '$d/full.dat'" \
			/dev/null >/dev/null 2>&1
		t "$([ ! -e "$d/paged" ]; echo $?)" "tool $c --no-pager on a terminal: no pager"
	done
	rm -f "$d/paged"
	UTRACE_PAGER="cat >'$d/paged'" "$UTRACE" report -i "$d/full.dat" >/dev/null 2>&1
	t "$([ ! -e "$d/paged" ]; echo $?)" "tool report on a pipe: no pager"
	# colour: asked for, or on a terminal; never on a pipe by default
	"$UTRACE" report --color=always -i "$d/full.dat" >"$d/col" 2>&1
	t "$(grep -q "$(printf '\033')\[1mmain$(printf '\033')\[0m" "$d/col"; echo $?)" \
		"tool report --color=always: function names in bold"
	"$UTRACE" report -i "$d/full.dat" >"$d/col" 2>&1
	t "$(grep -q "$(printf '\033')" "$d/col"; [ $? = 1 ]; echo $?)" "tool report on a pipe: no colour"
	UTRACE_PAGER="cat >'$d/paged'" script -qec "'$UTRACE' report -i '$d/full.dat'" /dev/null \
		>/dev/null 2>&1
	t "$(grep -q "$(printf '\033')\[1m" "$d/paged"; echo $?)" \
		"tool report on a terminal: colour, through the pager"
	"$UTRACE" graph --color=always -i "$d/full.dat" >"$d/col" 2>&1
	t "$(grep -q ": (1) $(printf '\033')\[1mmain$(printf '\033')\[0m$" "$d/col"; echo $?)" \
		"tool graph --color=always: function names in bold" "$(head -12 "$d/col")"
	"$UTRACE" graph -i "$d/full.dat" >"$d/col" 2>&1
	t "$(grep -q "$(printf '\033')" "$d/col"; [ $? = 1 ]; echo $?)" "tool graph on a pipe: no colour"
}

# record's progress line: on the terminal (a pseudo terminal made by
# script(1)) when the command's output and record's both go elsewhere;
# not when record's stderr is the terminal (the command's could be too)
tool_progress() {
	local d=$1 re='utrace record: [0-9]+ s, [0-9]+ records \([0-9]+ lost\) from [0-9]+ threads?, '
	command -v script >/dev/null || return 0
	script -qec "'$UTRACE' record -o '$d/pg.dat' -- sleep 1.6 >'$d/pg.out' 2>'$d/pg.err'" \
		/dev/null >"$d/pg.tty" 2>&1
	t "$(grep -qE "$re" "$d/pg.tty"; echo $?)" "tool record: a progress line on the terminal" \
		"$(tr '\r' '\n' <"$d/pg.tty" | head -3)"
	t "$(! grep -qE "$re" "$d/pg.err"; echo $?)" "tool record: no progress line in its stderr file"
	script -qec "'$UTRACE' record -o '$d/pg.dat' -- sleep 1.6 >'$d/pg.out'" /dev/null \
		>"$d/pg.tty" 2>&1
	t "$(! grep -qE "$re" "$d/pg.tty"; echo $?)" \
		"tool record: no progress line while its stderr is the terminal" "$(head -3 "$d/pg.tty")"
}
