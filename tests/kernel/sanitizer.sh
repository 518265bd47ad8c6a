#!/bin/bash
# tests/kernel/sanitizer.sh BUILD_DIR - sanitizer reports as the
# sanitizer:asan_report, ubsan_report, tsan_report, msan_report and
# lsan_report events
# (docs/utrace-sanitizers.md), as the seeds use kasan_report.  The planted bugs of sanitizer/asan.c (heap overflow,
# use after free, double free), built with gcc and clang, each run
# untraced, then under -p nop -e 'sanitizer:*' -R stacktrace, under
# function_graph and under function_graph --overwrite:
#   - the exit status is the untraced one; the report on stderr is the
#     untraced one (pids, addresses and the shadow bytes of the
#     neighbouring allocations aside) with the nop tracer, and
#     its ERROR, access and SUMMARY lines and its first stack with
#     function_graph (whose return trampoline stands in ASan's malloc
#     and free stacks, recorded by its frame-pointer unwinder);
#   - one event, whose fields are what that run's report printed: kind,
#     address, access size and direction, pc, SUMMARY's file, line and
#     function;
#   - its stacktrace names the functions of the report's first stack;
#   - under function_graph the event is inside the call of the bug (the
#     first frame of the report's stack in asan.c), or in the library call
#     (--libcall) made there where ASan reports (free() for a double free).
# UBSan's signed overflow and shift (ubsan.c) and TSan's data race
# (tsan.c), gcc and clang, the same ways: status and report as untraced,
# the fields as reported, the event inside the call.  MSan's
# uninitialised read (msan.c, clang) and LSan's leak (leak.c, with
# -fsanitize=leak and inside ASan), read from their text: the same.
# Then utrace list -e, a filter on kind, a hist trigger on kind,
# traceoff and snapshot on a report the program survives
# (-fsanitize-recover), and the kasan recipe through --tracefs:
# echo stacktrace > events/sanitizer/asan_report/trigger.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

need_built "$U"
live_tmp
SRC=$ROOT/tests/kernel/sanitizer/asan.c
MODES="heap-overflow use-after-free double-free"

not_grep() { ! grep -q "$@"; }
# nonempty_same A B: files A and B hold the same lines, at least one
nonempty_same() { local a; a=$(cat "$1"); [ -n "$a" ] && [ "$a" = "$(cat "$2")" ]; }
# the report as an untraced run prints it: our lines out, pids and
# addresses made equal
# (and whether TSan's other thread had finished when it reported: timing)
norm() {
	grep -v '^utrace record' "$1" |
		sed -E 's/==[0-9]+==/==N==/g; s/0x[0-9a-f]+/0x/g; s/(pid|tid)=[0-9]+/\1=N/g; s/, (finished|running)\)/)/'
}
# ... without the shadow bytes' rows: the runtime's own allocations are
# in ASan's heap too, next to the program's
norm_rows() { norm "$1" | grep -Ev '^(=>|  )0x: '; }
# the lines of a report that do not depend on how ASan unwinds malloc
main_lines() { norm "$1" | awk '/ERROR: AddressSanitizer/ { p = 1 } p && /^$/ { exit } p'; norm "$1" | grep '^SUMMARY'; }
# the functions of the report's first stack, in asan.c
asan_frames() { awk '/^    #[0-9]+ 0x/ { s = 1; if ($0 ~ /asan\.c:/) print $4; next } s { exit }' "$1"; }
# the event's fields as the report of that run says they must be
want_fields() {
	awk '
	/ERROR: AddressSanitizer/ {
		for (i = 1; i <= NF; i++) {
			if ($i == "address" || ($i == "on" && $(i + 1) ~ /^0x/)) addr = $(i + 1)
			if ($i == "pc") pc = $(i + 1)
		}
		if (addr == "address") addr = $(i + 1)
	}
	/^(READ|WRITE) of size [0-9]+/ && !size { size = $4; w = $1 == "WRITE" }
	/^SUMMARY: AddressSanitizer:/ {
		kind = $3; loc = $4; fn = $NF
		if (loc !~ /^\(/) { n = split(loc, p, ":"); file = p[1]; line = p[2] }
	}
	END {
		printf "kind=%s addr=%s size=%d is_write=%d pc=%s file=%s line=%d func=%s\n",
			kind, addr, size, w, pc ? pc : "0x0", file, line, fn
	}' "$1"
}
# the event's fields in the report of DAT
got_fields() { "$U" report -i "$1" 2>/dev/null | sed -n 's/.*san_report: //; T; s| \*/$||; p'; }
# the function whose call holds the event in a function_graph report
graph_parent() { graph_parents "$1" asan | head -1; }
# in_call DAT PROG WANT: the asan event's call is WANT (the report's first
# frame), or a library call of PROG (one of its imports, hooked by
# --libcall, the default) made right in WANT: free() in release() for a
# double free, where ASan's free reports
in_call() {
	local got outer
	read -r got outer < <(graph_parents "$1" asan 2)
	[ -n "$3" ] && { [ "$got" = "$3" ] ||
		{ [ "$outer" = "$3" ] && nm -D --undefined-only "$2" | awk '{ print $NF }' |
			sed 's/@.*//' | grep -qx "$got"; }; }
}
# ... of each SAN_report event (DAT SAN), per thread
graph_parents() { # DAT SAN [2: the caller too] (clang's llvm-symbolizer is traced too: its calls left out)
	# each line's thread from the task column: the switch banners cannot
	# say whose the lines before the first one are
	"$U" report -O funcgraph-proc --comm "$2-*" -i "$1" 2>/dev/null | awk -F'|' -v ev="$2_report:" -v two="${3:-}" '
		NF < 3 || /^#/ { next }
		{ split($1, a, " "); c = a[2]; fn = $3 }
		fn ~ /\(\) \{$/ { f = fn; sub(/^ */, "", f); sub(/\(\) \{$/, "", f); st[c, ++d[c]] = f; next }
		fn ~ /^ *\}/ { d[c]--; next }
		index(fn, ev) { if (two) print st[c, d[c]], st[c, d[c] - 1]; else print st[c, d[c]] }'
}

# one compiler, one bug
check_bug() { # check_bug CC MODE
	local cc=$1 m=$2 p=$T/asan-$1 w=$T/$1-$2 st0 st
	"$p" "$m" >/dev/null 2>"$w.u.err"
	st0=$?
	"$U" record -o "$w.nop.dat" -p nop -e 'sanitizer:*' -R stacktrace -- "$p" "$m" \
		>/dev/null 2>"$w.nop.err"
	st=$?
	check "$cc $m nop: exit status $st as untraced ($st0)" [ "$st" = "$st0" ]
	check "$cc $m nop: the report on stderr as untraced" diff <(norm_rows "$w.u.err") <(norm_rows "$w.nop.err")
	want_fields "$w.nop.err" >"$w.want"
	got_fields "$w.nop.dat" >"$w.got"
	check "$cc $m nop: one event, its fields as reported ($(cat "$w.got"))" \
		diff "$w.want" "$w.got"
	"$U" report -i "$w.nop.dat" 2>/dev/null | sed -n 's/^ => //p' | grep -Fxf <(asan_frames "$w.nop.err") \
		>"$w.stack"
	check "$cc $m nop: the stacktrace names the report's frames ($(asan_frames "$w.nop.err" | tr '\n' ' '))" \
		nonempty_same <(asan_frames "$w.nop.err") "$w.stack"
	for how in graph overwrite; do
		local opt=
		[ $how = overwrite ] && opt=--overwrite
		"$U" record -o "$w.$how.dat" $opt -e 'sanitizer:*' -- "$p" "$m" >/dev/null 2>"$w.$how.err"
		st=$?
		check "$cc $m $how: exit status $st as untraced ($st0)" [ "$st" = "$st0" ]
		check "$cc $m $how: the report's ERROR, access, first stack and SUMMARY as untraced" \
			diff <(main_lines "$w.u.err") <(main_lines "$w.$how.err")
		want_fields "$w.$how.err" >"$w.$how.want"
		check "$cc $m $how: the event's fields as reported" \
			diff "$w.$how.want" <(got_fields "$w.$how.dat")
		check "$cc $m $how: the event is inside $(asan_frames "$w.$how.err" | head -1)() (got $(graph_parent "$w.$how.dat"))" \
			in_call "$w.$how.dat" "$p" "$(asan_frames "$w.$how.err" | head -1)"
	done
}

built=0
# (utrace cflags prints several words)
# shellcheck disable=SC2046
for cc in gcc clang; do
	if ! command -v "$cc" >/dev/null ||
		! "$cc" $("$U" cflags --cc "$cc") -g -fsanitize=address -o "$T/asan-$cc" "$SRC" 2>"$T/$cc.cc"; then
		echo "UNSUPPORTED: $cc -fsanitize=address: $(head -1 "$T/$cc.cc" 2>/dev/null)"
		continue
	fi
	built=$((built + 1))
	check "$cc: utrace list -e names sanitizer:asan_report" \
		grep -qx sanitizer:asan_report <("$U" list -e "$T/asan-$cc" 2>&1)
	for m in $MODES; do
		check_bug "$cc" "$m"
	done
done
[ "$built" -gt 0 ] || unsupported "no compiler here builds with -fsanitize=address"
cc=gcc
command -v gcc >/dev/null && [ -x "$T/asan-gcc" ] || cc=clang
P=$T/asan-$cc

# UBSan: a signed overflow and a shift, reported and survived
# (ubsan_report's kind is UBSan's own name for the check)
ubsan_want() { # the events' fields, from the "FILE:LINE:COL: runtime error" lines
	awk -F: '/: runtime error: / {
		k = $5 ~ /signed integer overflow/ ? "signed-integer-overflow" : $5 ~ /shift exponent/ ? "invalid-shift-exponent" : "?"
		printf "kind=%s addr=0x0 size=0 is_write=0 pc=0x0 file=%s line=%s func=\n", k, $1, $2 }' "$1"
}
check_ubsan() { # check_ubsan CC
	local cc=$1 p=$T/ubsan-$1 w=$T/ubsan-$1 st0 st how opt first
	"$p" >/dev/null 2>"$w.u.err"
	st0=$?
	for how in nop graph overwrite; do
		opt=
		[ $how = nop ] && opt="-p nop -R stacktrace"
		[ $how = overwrite ] && opt=--overwrite
		# shellcheck disable=SC2086
		tsan_run "$w.$how.err" "$U" record -o "$w.$how.dat" -e 'sanitizer:*' $opt -- "$p"
		st=$?
		check "ubsan $cc $how: exit status $st as untraced ($st0), the report as untraced" \
			eval "[ $st = $st0 ] && diff <(norm '$w.u.err') <(norm '$w.$how.err')"
		check "ubsan $cc $how: an event per report, fields as reported" \
			nonempty_same <(ubsan_want "$w.$how.err") <(got_fields "$w.$how.dat")
	done
	check "ubsan $cc nop: each stacktrace starts at the bug's function, then main" \
		[ "$("$U" report -i "$w.nop.dat" 2>/dev/null | awk '/<stack trace>/ { n = 2; next }
			n && /^ => / { printf "%s ", $2; n--; next } { n = 0 }')" = "add_one main shift_by main " ]
	for how in graph overwrite; do
		check "ubsan $cc $how: the events inside add_one() and shift_by()" \
			[ "$(graph_parents "$w.$how.dat" ubsan | tr '\n' ' ')" = "add_one shift_by " ]
	done
	first=$(grep -m1 ': runtime error: ' "$w.u.err")
	"$U" record -o "$w.first.dat" -p nop -e sanitizer:ubsan_report -f "first_line == \"$first\"" \
		-- "$p" >/dev/null 2>&1
	check "ubsan $cc: first_line is the report's first line ($first)" \
		[ "$(got_fields "$w.first.dat" | grep -c signed-integer-overflow):$(got_fields "$w.first.dat" | grep -c .)" = 1:1 ]
}

# TSan: a data race between a thread and main; the event's fields are
# the report's first access
tsan_want() {
	awk '/^  (Read|Write|Atomic read|Atomic write) of size/ && !a {
		a = 1; w = $1 == "Write" || $2 == "write"; for (i = 1; i <= NF; i++) if ($i == "size") size = $(i + 1)
		for (i = 1; i <= NF; i++) if ($i == "at") addr = $(i + 1); next }
	a && /^    #0 / && !f { f = 1; fn = $2; n = split($3, p, ":"); file = p[1]; line = p[2] }
	/^SUMMARY: ThreadSanitizer: data race/ { kind = "data-race" }
	END { printf "kind=%s addr=%s size=%d is_write=%d pc=\n", kind, addr, size, w
		printf "file=%s line=%d func=%s\n", file, line, fn }' "$1"
}
tsan_got() { got_fields "$1" | sed -E 's/ pc=0x[0-9a-f]+ / pc=\n/'; }
# tsan_run ERR CMD...: CMD's exit status, its stderr in ERR.  TSan itself
# misses the planted race now and then: LLVM 14's runtime let 3 of 1000
# untraced runs of tsan.c exit 0 with no report (gcc's none of 1000), so
# a run whose stderr has no report is run again, up to three times (a
# tracer that hides the report fails all three).
tsan_run() {
	local err=$1 st
	shift
	for _ in 1 2 3; do
		"$@" >/dev/null 2>"$err"
		st=$?
		grep -q '^WARNING: ThreadSanitizer' "$err" && break
	done
	return $st
}
check_tsan() { # check_tsan CC
	local cc=$1 p=$T/tsan-$1 w=$T/tsan-$1 st0 st how opt first
	tsan_run "$w.u.err" "$p"
	st0=$?
	for how in nop graph overwrite; do
		opt=
		[ $how = nop ] && opt="-p nop -R stacktrace"
		[ $how = overwrite ] && opt=--overwrite
		# shellcheck disable=SC2086
		tsan_run "$w.$how.err" "$U" record -o "$w.$how.dat" -e 'sanitizer:*' $opt -- "$p"
		st=$?
		check "tsan $cc $how: exit status $st as untraced ($st0)" [ "$st" = "$st0" ]
		check "tsan $cc $how: one event, its fields the report's first access ($(tsan_got "$w.$how.dat" | tr '\n' ' '))" \
			nonempty_same <(tsan_want "$w.$how.err") <(tsan_got "$w.$how.dat")
	done
	# (function_graph's return trampoline stands in TSan's own stacks,
	# taken from return addresses at function entry)
	check "tsan $cc nop: the report as untraced" diff <(norm "$w.u.err") <(norm "$w.nop.err")
	# (the pid in it differs from run to run: a glob)
	first=$(sed -n '/^WARNING: ThreadSanitizer/{s/pid=[0-9]*/pid=*/;p;q}' "$w.u.err")
	tsan_run "$w.first.err" "$U" record -o "$w.first.dat" -p nop -e sanitizer:tsan_report \
		-f "first_line ~ \"$first\"" -- "$p"
	check "tsan $cc: first_line is the report's first line ($first)" \
		[ "$(got_fields "$w.first.dat" | grep -c .)" = 1 ]
	check "tsan $cc graph: the report's WARNING, access and SUMMARY lines as untraced" \
		diff <(norm "$w.u.err" | grep -E '^(WARNING|SUMMARY|  [A-Z])') \
		<(norm "$w.graph.err" | grep -E '^(WARNING|SUMMARY|  [A-Z])')
	check "tsan $cc nop: the stacktrace is the first access's stack" \
		nonempty_same <(awk '/^  (Read|Write) of size/ { a = 1; next } a && /^    #/ { print $2; next } a { exit }' "$w.nop.err") \
		<("$U" report -i "$w.nop.dat" 2>/dev/null | sed -n 's/^ => //p')
	# (the first report's: how many TSan prints depends on how the two
	# threads met, which the load decides)
	for how in graph overwrite; do
		check "tsan $cc $how: the event inside the racing call ($(tsan_want "$w.$how.err" | sed -n 's/.*func=//p')())" \
			nonempty_same <(graph_parents "$w.$how.dat" tsan | head -1) \
			<(tsan_want "$w.$how.err" | sed -n 's/.*func=//p')
	done
}

for cc in gcc clang; do
	command -v "$cc" >/dev/null || continue
	# shellcheck disable=SC2046
	if "$cc" $("$U" cflags --cc "$cc") -g -fsanitize=undefined -o "$T/ubsan-$cc" \
		"$ROOT/tests/kernel/sanitizer/ubsan.c" 2>"$T/$cc.ub"; then
		check_ubsan "$cc"
	else
		echo "UNSUPPORTED: $cc -fsanitize=undefined: $(head -1 "$T/$cc.ub")"
	fi
	# shellcheck disable=SC2046
	if "$cc" $("$U" cflags --cc "$cc") -g -fsanitize=thread -o "$T/tsan-$cc" \
		"$ROOT/tests/kernel/sanitizer/tsan.c" 2>"$T/$cc.ts"; then
		check_tsan "$cc"
	else
		echo "UNSUPPORTED: $cc -fsanitize=thread: $(head -1 "$T/$cc.ts")"
	fi
done

# MSan (clang) and LSan (alone, and inside ASan): read from their text
text_want() { # the fields the report printed: MSan's first frame and SUMMARY, LSan's first leak
	awk '/WARNING: MemorySanitizer: / { for (i = 1; i <= NF; i++) if ($i == "MemorySanitizer:") kind = $(i + 1); msan = 1 }
	/^    #0 0x/ && !pc && msan { pc = $2 }
	/^SUMMARY: MemorySanitizer:/ { n = split($4, p, ":"); file = p[1]; line = p[2]; fn = $NF }
	/^(Direct|Indirect) leak of / && !kind { kind = tolower($1) "-leak"; size = $4; leak = 1; next }
	leak && /^    #[0-9]+ 0x/ && $4 !~ /^(malloc|calloc|realloc|__interceptor_)/ && !fn {
		fn = $4; n = split($5, p, ":"); file = p[1]; line = p[2] }
	leak && !/^    #/ { leak = 0 }
	END { printf "kind=%s addr=0x0 size=%d is_write=0 pc=%s file=%s line=%d func=%s\n",
		kind, size, pc ? pc : "0x0", file, line, fn }' "$1"
}
frames_out() { if [ "$1" = nop ]; then cat; else grep -v '^    #'; fi; }
check_text() { # check_text NAME CC FLAGS SRC WANT-STACK: one program, nop, graph, overwrite
	local name=$1 cc=$2 p=$T/$1-$2 w=$T/$1-$2 st0 st how opt
	# shellcheck disable=SC2046,SC2086
	if ! "$cc" $("$U" cflags --cc "$cc") -g $3 -o "$p" "$4" 2>"$w.cc"; then
		echo "UNSUPPORTED: $cc $3: $(head -1 "$w.cc")"
		return
	fi
	"$p" >/dev/null 2>"$w.u.err"
	st0=$?
	for how in nop graph overwrite; do
		opt=
		[ $how = nop ] && opt="-p nop -R stacktrace"
		[ $how = overwrite ] && opt=--overwrite
		# shellcheck disable=SC2086
		tsan_run "$w.$how.err" "$U" record -o "$w.$how.dat" -e 'sanitizer:*' $opt -- "$p"
		st=$?
		# (function_graph's return trampoline stands in the allocation
		# stacks the sanitizer took with its frame-pointer unwinder: its
		# report is compared without the frames)
		check "$name $cc $how: exit status $st as untraced ($st0), the report as untraced" \
			eval "[ $st = $st0 ] && diff <(norm_rows '$w.u.err' | frames_out $how) <(norm_rows '$w.$how.err' | frames_out $how)"
		check "$name $cc $how: one event, its fields as reported ($(got_fields "$w.$how.dat"))" \
			nonempty_same <(text_want "$w.$how.err") <(got_fields "$w.$how.dat")
	done
	check "$name $cc nop: the stacktrace has $5" \
		grep -q "$5" <("$U" report -i "$w.nop.dat" 2>/dev/null | sed -n 's/^ => //p' | tr '\n' ' ')
}
if command -v clang >/dev/null; then
	check_text msan clang -fsanitize=memory "$ROOT/tests/kernel/sanitizer/msan.c" "check main "
	for how in graph overwrite; do
		check "msan clang $how: the event inside check()" \
			[ "$(graph_parents "$T/msan-clang.$how.dat" msan)" = check ]
	done
fi
for cc in gcc clang; do
	command -v "$cc" >/dev/null || continue
	check_text lsan "$cc" -fsanitize=leak "$ROOT/tests/kernel/sanitizer/leak.c" "make drop main "
	check_text lsan-in-asan "$cc" -fsanitize=address "$ROOT/tests/kernel/sanitizer/leak.c" "make drop main "
done

# a program without a sanitizer has no such event
"${cc}" -o "$T/plain" "$SRC"
check "list -e: no sanitizer event for a program without ASan" \
	not_grep sanitizer: <("$U" list -e "$T/plain" 2>&1)
"$U" record -o "$T/x.dat" -e sanitizer:asan_report -- "$T/plain" none >/dev/null 2>"$T/plain.err"
check "record -e sanitizer:asan_report on a program without ASan: an error" \
	grep -q 'no such event' "$T/plain.err"

# a filter on kind
for m in heap-overflow use-after-free; do
	"$U" record -o "$T/f-$m.dat" -p nop -e sanitizer:asan_report -f 'kind == "heap-use-after-free"' \
		-- "$P" "$m" >/dev/null 2>&1
	got_fields "$T/f-$m.dat" | grep -c . >"$T/f-$m.n"
done
check "-f 'kind == \"heap-use-after-free\"': the overflow's event left out, the use after free's kept" \
	[ "$(cat "$T/f-heap-overflow.n"):$(cat "$T/f-use-after-free.n")" = 0:1 ]

# first_line, the report's first line, with a glob
for m in heap-overflow use-after-free; do
	"$U" record -o "$T/g-$m.dat" -p nop -e sanitizer:asan_report \
		-f 'first_line ~ "*ERROR: AddressSanitizer: heap-buffer-overflow on address 0x*"' \
		-- "$P" "$m" >/dev/null 2>&1
	got_fields "$T/g-$m.dat" | grep -c . >"$T/g-$m.n"
done
check "-f 'first_line ~ \"*ERROR: AddressSanitizer: heap-buffer-overflow ...\"': only the overflow's event" \
	[ "$(cat "$T/g-heap-overflow.n"):$(cat "$T/g-use-after-free.n")" = 1:0 ]

# a hist trigger on kind
"$U" record -o "$T/h.dat" -p nop -e sanitizer:asan_report -R 'hist:keys=kind' -- "$P" double-free \
	>/dev/null 2>&1
"$U" report --hist -i "$T/h.dat" >"$T/h.hist" 2>&1
check "hist:keys=kind counts the double free" \
	grep -Eq '^\{ kind: +double-free +\} hitcount: +1$' "$T/h.hist"

# a report the program survives: traceoff stops the trace there,
# snapshot saves the calls up to it
# shellcheck disable=SC2046
"$cc" $("$U" cflags --cc "$cc") -g -fsanitize=address -fsanitize-recover=address -o "$T/rec" "$SRC"
export ASAN_OPTIONS=halt_on_error=0
"$U" record -o "$T/on.dat" -e sanitizer:asan_report -- "$T/rec" heap-overflow >/dev/null 2>"$T/on.err"
"$U" record -o "$T/off.dat" -e sanitizer:asan_report -R traceoff -- "$T/rec" heap-overflow \
	>/dev/null 2>"$T/off.err"
st=$?
check "recovered report: the program goes on to after_bug, exit 0 (status $st)" \
	grep -q 'after_bug()' <("$U" report -i "$T/on.dat" 2>/dev/null)
"$U" report -i "$T/off.dat" >"$T/off.txt" 2>/dev/null
check "-R traceoff: the calls up to the report recorded (fill), none after it (no after_bug)" \
	eval "grep -q 'fill()' '$T/off.txt' && not_grep 'after_bug()' '$T/off.txt'"
"$U" record -o "$T/snap.dat" -e sanitizer:asan_report -R snapshot -- "$T/rec" heap-overflow \
	>/dev/null 2>&1
"$U" report --snapshot -i "$T/snap.dat" >"$T/snap.txt" 2>&1
check "-R snapshot: report --snapshot shows fill() inside run() up to the report" \
	grep -q 'fill()' "$T/snap.txt"
unset ASAN_OPTIONS

# the kasan recipe: the trigger written into the live tracefs
if [ -c /dev/fuse ]; then
	"$U" record -p nop --tracefs "$T/mnt" -o "$T/live.dat" -- "$P" heap-overflow "$T/go" \
		>"$T/live.out" 2>"$T/live.err" &
	RP=$!
	until_ok 100 test -f "$T/mnt/events/sanitizer/asan_report/trigger"
	echo stacktrace >"$T/mnt/events/sanitizer/asan_report/trigger"
	echo 1 >"$T/mnt/events/sanitizer/asan_report/enable"
	check "tracefs: events/sanitizer/asan_report/trigger reads stacktrace:unlimited" \
		grep -qx 'stacktrace:unlimited' "$T/mnt/events/sanitizer/asan_report/trigger"
	touch "$T/go"
	wait "$RP"
	RP=
	"$U" report -i "$T/live.dat" >"$T/live.txt" 2>/dev/null
	check "tracefs: the event and its stack trace (fill, run, main)" \
		[ "$(grep -c asan_report: "$T/live.txt"):$(sed -n 's/^ => //p' "$T/live.txt" | grep -Ex 'fill|run|main' | tr '\n' ' ')" = "1:fill run main " ]
else
	echo "UNSUPPORTED: no /dev/fuse: the tracefs recipe"
fi
