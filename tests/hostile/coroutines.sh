#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/coroutines.sh - programs that switch stacks inside a thread
# (issue 21, item 1): makecontext/swapcontext coroutines whose frames stay
# open across 8000 switches (coro_swap.c), getcontext/setcontext round
# trips, an abandoned coroutine and returns to uc_link (coro_ctx.c), a
# hand-written assembly switch that utrace is not told of (coro_asm.c),
# coroutines in 4 threads at once and one that moves between threads
# (coro_threads.c), and C++20 coroutines with an exception (coro_cxx20.cc), which must stay
# as they were.
# gcc and clang, -O0 and -O2, both tracers: output and exit status as
# untraced; the ucontext programs' calls counted exactly by report (the
# counts are the programs' own, from their loops); the assembly one only
# has to run intact (function_graph stops tracing that thread).  Return
# probes on the ucontext programs, with no tracer too, and coro_swap
# attached to (-P) and under --tracefs with probes added live (at the end).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

# calls DAT FUNC: the calls report --profile gives FUNC (its clones
# FUNC.constprop.0 ... too; a C++ FUNC(ARGS) by its name)
calls() {
	"$U" report -i "$1" --profile 2>/dev/null | awk -v f="$2" '
		{ for (i = 2; i <= NF; i++)
			if (($i == f || index($i, f ".") == 1 || index($i, f "(") == 1) &&
			    $(i - 1) ~ /^[0-9]+$/) { n += $(i - 1); break } }
		END { print n + 0 }'
}

# counts WHAT DAT FUNC=N...: every FUNC called N times, the report clean
counts() {
	local what=$1 dat=$2 bad="" fn want got
	shift 2
	for fw in "$@"; do
		fn=${fw%=*} want=${fw#*=}
		got=$(calls "$dat" "$fn")
		[ "$got" = "$want" ] || bad+=" $fn: $got calls, not $want;"
	done
	if "$U" report -i "$dat" >/dev/null 2>"$dat.rep" && ! grep -q warning "$dat.rep" && [ -z "$bad" ]; then
		ok "$what"
	else
		notok "$what"
		echo "#  $bad"
		sed 's/^/#   report: /' "$dat.rep" | head -5
	fi
}

# coro_swap.c: 4 coroutines x 2000 rounds
SWAP=(co_step=8000 co_leaf=8000 co_yield=8000 co_main=4 sched_resume=8004 main=1)
# coro_ctx.c: 99 setcontext round trips, 3 coroutines of 300 steps
CTX=(ctx_body=100 ctx_jump=99 ctx_work=901 ctx_run=3 main=1)
# coro_threads.c: 4 threads x 3 coroutines x 400 rounds, and one that
# each thread resumes once
TH=(th_step=4804 th_yield=4804 th_run=13 th_resume=4817 worker=4 main=1)
# coro_cxx20.cc: 4 generators of 500 values, one throws at its end
CXX=(cx_next=2005 cx_value=2000 cx_fail=1 main=1)

for cc in gcc clang; do
	command -v $cc >/dev/null || { unsupported "$cc is not installed"; continue; }
	for opt in -O0 -O2; do
		for p in swap ctx asm threads cxx20; do
			if [ $p = cxx20 ]; then
				build "$p$cc$opt" coro_cxx20.cc ${cc/gcc/g}++ $opt -std=c++20 || continue
			else
				build "$p$cc$opt" "coro_$p.c" $cc $opt || continue
			fi
			run_plain "$W/$p$cc$opt.a" "$W/$p$cc$opt"
			grep -q '^result: ' "$W/$p$cc$opt.a.out" ||
				notok "coro_$p ($cc $opt) prints its result untraced"
			while read -r mode; do
				o=$W/$p$cc$opt.${mode##* }
				# shellcheck disable=SC2086 # a mode is a list of options
				run_traced "$o" $mode -- "$W/$p$cc$opt"
				same_run "coro_$p ($cc $opt), $mode: output and exit status" \
					"$W/$p$cc$opt.a" "$o" || continue
				case $p in
				swap) counts "coro_swap ($cc $opt), $mode: exact calls" "$o.dat" "${SWAP[@]}" ;;
				ctx) counts "coro_ctx ($cc $opt), $mode: exact calls" "$o.dat" "${CTX[@]}" ;;
				threads) counts "coro_threads ($cc $opt), $mode: exact calls" "$o.dat" "${TH[@]}" ;;
				cxx20) counts "coro_cxx20 ($cc $opt), $mode: exact calls" "$o.dat" "${CXX[@]}" ;;
				esac
			done < <(each_mode)
		done
	done
done

# The same program built without the flags: its functions patched at
# their entries, its library calls hooked (--libcall).
if gcc -O2 -g -o "$W/swap-plain" "$HP/coro_swap.c" 2>"$W/swap-plain.build"; then
	run_plain "$W/swap-plain.a" "$W/swap-plain"
	while read -r mode; do
		o=$W/swap-plain.${mode##* }
		# shellcheck disable=SC2086 # a mode is a list of options
		run_traced "$o" $mode -- "$W/swap-plain"
		same_run "coro_swap without the flags, $mode: output and exit status" \
			"$W/swap-plain.a" "$o" &&
			counts "coro_swap without the flags, $mode: exact calls" "$o.dat" "${SWAP[@]}"
	done < <(each_mode)
else
	notok "build coro_swap without the flags"
fi

# depths WHAT DAT FUNC=D...: every call of FUNC that report prints (an
# entry "FUNC() {" or a leaf "FUNC();") is at depth D of its own stack:
# each coroutine's calls nest under its own first function, a frame left
# by setcontext ends there
depths() {
	local what=$1 dat=$2
	shift 2
	if "$U" report -i "$dat" 2>/dev/null | awk -v want="$*" '
		BEGIN { n = split(want, w, " "); for (i = 1; i <= n; i++) { split(w[i], kv, "="); d[kv[1]] = kv[2] } }
		match($0, /\| +[A-Za-z_][A-Za-z_0-9.]*\(\)/) {
			s = substr($0, RSTART + 1, RLENGTH - 1)
			f = s; sub(/^ +/, "", f); sub(/[.(].*/, "", f)
			depth = (length(s) - length(f) - 2 - 2) / 2
			sub(/\(\)$/, "", f)
			if (f in d) { seen[f]++; if (depth != d[f]) { print "#   " f " at depth " depth; bad = 1 } }
		}
		END { for (f in d) if (!seen[f]) { print "#   no " f; bad = 1 }; exit bad }' >"$dat.depth"; then
		ok "$what"
	else
		notok "$what"
		sort "$dat.depth" | uniq -c | head -5
	fi
}

for cc in gcc clang; do
	for opt in -O0 -O2; do
		o=$W/swap$cc$opt.function_graph
		[ -f "$o.dat" ] && depths "coro_swap ($cc $opt): each coroutine's calls nest in it" "$o.dat" \
			main=0 sched_resume=1 co_main=0 co_step=1 co_leaf=2 co_yield=2
		o=$W/threads$cc$opt.function_graph
		[ -f "$o.dat" ] && depths "coro_threads ($cc $opt): each coroutine's calls nest in it" \
			"$o.dat" main=0 worker=0 th_resume=1 th_run=0 th_step=1 th_yield=2
		o=$W/ctx$cc$opt.function_graph
		[ -f "$o.dat" ] && depths "coro_ctx ($cc $opt): setcontext ends frames, coroutines nest" "$o.dat" \
			main=0 ctx_body=1 ctx_jump=1 ctx_run=0 ctx_abandon=0 ctx_work=1
	done
done

# Return probes on functions whose frames stay open across switches
# (runtime/inproc_probes.c keeps a makecontext stack's return-probe frames with
# that stack, fgraph_stacks.c's regions, whatever the tracer): with no
# tracer, -p function and the default one, the program runs as untraced
# and each probe fires once per return, the program's own counts (ctx_jump
# and ctx_abandon never return: their frames are left by setcontext and
# by a coroutine never resumed; the wandering coroutine of coro_threads
# returns on another thread than the one that called).
declare -A RP=(
	[swap]="cs:co_step=8000 cy:co_yield=8000 cm:co_main=4 sr:sched_resume=8004"
	[ctx]="cb:ctx_body=100 cj:ctx_jump=0 cw:ctx_work=901 cr:ctx_run=3 ca:ctx_abandon=0"
	[threads]="ts:th_step=4804 ty:th_yield=4804 tr:th_run=13 te:th_resume=4817")

# rhits WHAT DAT EV:FUNC=N...: each event EV recorded N times
rhits() {
	local what=$1 dat=$2 bad="" ev want got x
	shift 2
	"$U" report -i "$dat" >"$dat.rep" 2>&1
	for x in "$@"; do
		ev=${x%%:*} want=${x#*=}
		got=$(grep -c " $ev: " "$dat.rep")
		[ "$got" = "$want" ] || bad+=" $ev (${x%=*}): $got hits, not $want;"
	done
	if [ -z "$bad" ] && ! grep -q warning "$dat.rep"; then
		ok "$what"
	else
		notok "$what"
		echo "#  $bad"
		grep -E 'warning|notice' "$dat.rep" | head -3 | sed 's/^/#   report: /'
		# what the recorder said (an attach that failed, losses)
		[ -f "${dat%.dat}.rec" ] && tail -4 "${dat%.dat}.rec" | sed 's/^/#   recorder: /'
	fi
}

for cc in gcc clang; do
	for opt in -O0 -O2; do
		for p in swap ctx threads; do
			x=$W/$p$cc$opt
			[ -x "$x" ] || continue
			probes=()
			for r in ${RP[$p]}; do
				f=${r#*:}
				probes+=(--probe "r:${r%%:*} ${f%=*}")
			done
			for mode in "-p nop" "-p function" ""; do
				o=$x.r${mode##* }
				# shellcheck disable=SC2086 # a mode is a list of options
				run_traced "$o" $mode "${probes[@]}" -- "$x"
				what="coro_$p ($cc $opt), ${mode:-default tracer}, return probes"
				same_run "$what: output and exit status" "$x.a" "$o" &&
					rhits "$what: one hit per return" "$o.dat" ${RP[$p]}
			done
		done
	done
done

# coro_swap attached to (record -P) before its main (attach_held), then
# let run: the runtime is dlopen'ed there, and its late binding
# (runtime/late_bind.c) points the program's makecontext and swapcontext
# slots at the interposers, so the return probes learn the coroutines'
# stacks and keep their live frames (it once exited 127): exact hits
# under every tracer, function_graph included.
if [ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)" = 0 ]; then
	for b in gcc-O2 clang-O0; do
		x=$W/swap$b
		[ -x "$x" ] || continue
		for mode in "-p nop" "-p function" "-p function_graph"; do
			o=$x.att${mode##* }
			what="coro_swap ($b), attached to, $mode, return probes"
			# shellcheck disable=SC2086 # a mode is a list of options
			attach_held "$o" $mode --probe "r:cs co_step" --probe "r:sr sched_resume" -- "$x"
			same_run "$what: output and exit status" "$x.a" "$o" || continue
			rhits "$what: one hit per return" "$o.dat" cs:co_step=8000 sr:sched_resume=8004
		done
	done
else
	unsupported "record -P: no permission to attach (ptrace_scope)"
fi

# coro_swap under --tracefs (the live tracefs), probes added while it
# waits: an entry and a return probe on co_step, whose calls stay open
# across the switches: exact hits, and the program as untraced; the same
# with function_graph chosen live (the program as untraced only: report
# does not show the probes' events of a recording whose tracer changed).
if [ "$(id -u)" -eq 0 ] && [ -c /dev/fuse ] && [ -x "$W/swapgcc-O2" ]; then
	x=$W/swapgcc-O2 o=$W/swap-live m=$W/live-mnt
	mkdir -p "$m"
	for tracer in nop function_graph; do
		rm -f "$o.go"
		timeout -k 5 "${HOSTILE_LIMIT:-120}" "$U" record -p nop --tracefs "$m" -o "$o.dat" -- \
			"$x" "$o.go" >"$o.out" 2>"$o.err" &
		r=$!
		what="coro_swap (gcc -O2), --tracefs, live p: and r: on co_step, current_tracer $tracer"
		if until_ok 300 test -f "$m/kprobe_events" &&
			echo "p:ce co_step" >>"$m/kprobe_events" && echo "r:cs co_step" >>"$m/kprobe_events" &&
			echo 1 >"$m/events/kprobes/enable" && echo $tracer >"$m/current_tracer"; then
			touch "$o.go"
			wait $r
			echo $? >"$o.rc"
			grep -E '^utrace( [a-z]+)?(\[[0-9]+\])?:' "$o.err" >"$o.rec"
			same_run "$what: output and exit status" "$x.a" "$o" && [ $tracer = nop ] &&
				rhits "$what: one hit per call and return" "$o.dat" ce:co_step=8000 cs:co_step=8000
		else
			notok "$what: the probes go in"
			touch "$o.go"
			wait $r
		fi
	done
	if grep -q " $m fuse" /proc/mounts; then umount -l "$m"; fi
else
	unsupported "--tracefs: needs root, /dev/fuse and the gcc -O2 build"
fi
