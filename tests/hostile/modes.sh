#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/modes.sh - the hostile programs under every recording
# mode (issue 21, "A hostile-program tier"): coroutines (coro_swap.c),
# raw clone threads, fork/vfork/exec and 1 ms threads, a 10 kHz signal
# handler, an allocator locked across fork, a program that redirects fd 2,
# and the modes_* programs: a dlopen/dlclose loop, close_range/closefrom
# of every descriptor above 2, C++ exceptions through probed functions,
# longjmp and siglongjmp out of a signal handler through traced functions.
# Each runs untraced and under -p function, the default function_graph,
# -p nop with an entry, a mid-function and a return probe on one of its
# functions,
# -F 999 -g and --libcall: output and exit status as untraced, and the
# probes' hits exact where the program's calls are known.  Then each
# attached to (-P) under both tracers.  Last, a setuid copy of a program
# run by root: as untraced, and no crash.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

# hits WHAT OUT ENTRIES RETURNS: report of OUT.dat has ENTRIES hits of
# the entry probe e and of the mid-function probe m, and RETURNS of the
# return probe x ("-": not known)
hits() {
	local what=$1 o=$2 we=$3 wx=$4 e m x
	[ "$we" = - ] && [ "$wx" = - ] && return 0
	"$U" report -i "$o.dat" >"$o.rep" 2>&1
	e=$(grep -c ' e: ' "$o.rep")
	m=$(grep -c ' m: ' "$o.rep")
	x=$(grep -c ' x: ' "$o.rep")
	if { [ "$we" = - ] || { [ "$e" = "$we" ] && [ "$m" = "$we" ]; }; } &&
		{ [ "$wx" = - ] || [ "$x" = "$wx" ]; }; then
		ok "$what: one hit per call ($e entries, $m mid-function, $x returns)"
	else
		notok "$what: one hit per call"
		echo "#   e $e and m $m of $we entries, x $x of $wx returns"
	fi
}

# midoff EXE FUNC: the offset in FUNC of its first instruction after the
# call site's NOPs (and endbr64): a mid-function probe there runs once a
# call, as the entry probe does
midoff() {
	objdump -d --no-show-raw-insn "$1" | awk -v f="<$2>:" '
		$2 == f { start = strtonum("0x" $1); on = 1; next }
		on && /^$/ { exit }
		on && $2 !~ /^(nop|endbr64|xchg)/ { sub(":", "", $1); print strtonum("0x" $1) - start; exit }'
}

# want NAME OUT: the entries and returns NAME's probed function makes,
# known in advance or from what the run printed on OUT.err
want() {
	case $1 in
	swap) echo 8000 8000 ;; # co_leaf: 4 coroutines x 2000 rounds
	clone) echo 3 3 ;;      # wait_gone: once a thread
	signal) sed -n 's/^steps [0-9]* handled \([0-9]*\)$/\1 \1/p' "$2.err" ;;
	dl) echo 200 200 ;;     # dl_round: one a load
	# cl_work: 2 x 1000 in main; the 4 threads x 1000 start after the
	# program closed utrace's connection, untraced (the recorder says so)
	close) echo 2000 2000 ;;
	exc) sed -n 's/^calls ex_mid \([0-9]*\) returns \([0-9]*\) .*/\1 \2/p' "$2.err" ;;
	jmp) echo 12000 0 ;;    # jmp_deep: 3 deep x 2 x 2000, none returns
	*) echo - - ;;
	esac
}

# calls DAT FUNC: the calls report --profile gives FUNC (a C++ FUNC(ARGS)
# by its name)
calls() {
	"$U" report -i "$1" --profile 2>/dev/null | awk -v f="$2" '
		{ for (i = 2; i <= NF; i++)
			if (($i == f || index($i, f "(") == 1) && $(i - 1) ~ /^[0-9]+$/) { n += $(i - 1); break } }
		END { print n + 0 }'
}

# counts WHAT DAT FUNC=N...: every FUNC called N times
counts() {
	local what=$1 dat=$2 bad="" fw got
	shift 2
	for fw in "$@"; do
		got=$(calls "$dat" "${fw%=*}")
		[ "$got" = "${fw#*=}" ] || bad+=" ${fw%=*}: $got calls, not ${fw#*=};"
	done
	if [ -z "$bad" ]; then
		ok "$what"
	else
		notok "$what"
		echo "#  $bad"
		# what the recorder said (attach time, losses, notices)
		[ -f "${dat%.dat}.rec" ] && tail -4 "${dat%.dat}.rec" | sed 's/^/#   recorder: /'
	fi
}

# the calls the tracers count exactly in the modes_* programs (close: its
# threads start after it closed utrace's connection, untraced)
DL=(dl_round=200 dl_work=200 dl_leaf=400 main=1)
CLOSE=(cl_work=2000 main=1)
EXC=(ex_outer=3000 ex_mid=3000 ex_throw=3000 main=1)
JMP=(jmp_deep=12000 jmp_handler_work=2000 main=1)
# coro_swap.c: NCO 4 coroutines x ROUNDS 2000 (attached: followed across
# the switches once swapcontext is bound, runtime/late_bind.c)
SWAP=(co_main=4 co_step=8000 co_leaf=8000 sched_resume=8004 main=1)

# NAME SOURCE PROBED-FUNCTION [ARGS...]; the ARGS' @W@ is $W
# The probed functions above return on the stack they were called on;
# the return probes whose frames do not are checked after the loop.
PROGS=(
	"swap coro_swap.c co_leaf"
	"clone forkclone_clone.c wait_gone"
	"fork forkclone_fork.c mix"
	"signal probes_signal.c handler_work"
	"atfork forkclone_atfork.c child_work"
	"stderr stderr_log.c work @W@/log"
	"dl modes_dl.c dl_round @W@/libmodes_dl.so"
	"close modes_close.c cl_work"
	"exc modes_exc.cc _Z6ex_midi"
	"jmp modes_jmp.c jmp_deep"
)

sampling=1
if ! "$U" record -o "$W/f.dat" -F 99 -- true >/dev/null 2>"$W/f.err"; then
	unsupported "-F 999 -g: sampling does not work here ($(tail -1 "$W/f.err"))"
	sampling=""
fi

for cc in gcc clang; do
	command -v $cc >/dev/null || { unsupported "$cc is not installed"; continue; }
	case $cc in gcc) opt=-O2 cxx=g++ ;; clang) opt=-O0 cxx=clang++ ;; esac
	# the library modes_dl.c loads, made with the same flags
	build libmodes_dl.so modes_dllib.c $cc $opt -shared -fPIC || continue
	for p in "${PROGS[@]}"; do
		read -r name src fn args <<<"$p"
		args=${args//@W@/$W}
		exe=$name$cc$opt
		case $src in
		*.cc) build "$exe" "$src" $cxx $opt || continue ;;
		modes_dl.c) build "$exe" "$src" $cc $opt -ldl || continue ;;
		*) build "$exe" "$src" $cc $opt || continue ;;
		esac
		# shellcheck disable=SC2086 # args is a list
		run_plain "$W/$exe.a" "$W/$exe" $args
		[ -s "$W/$exe.a.out" ] || notok "$name ($cc $opt) prints its result untraced"
		modes=("-p function" "" "-p nop" "--libcall")
		[ -n "$sampling" ] && modes+=("-F 999 -g")
		for mode in "${modes[@]}"; do
			o=$W/$exe.m
			case $mode in
			"") label="function_graph (default)" ;;
			"-p nop")
				off=$(midoff "$W/$exe" "$fn")
				label="-p nop, p:, p: +${off:-?} and r: on $fn"
				;;
			*) label=$mode ;;
			esac
			# shellcheck disable=SC2086 # a mode is a list of options
			if [ "$mode" = "-p nop" ]; then
				run_traced "$o" -p nop --probe "p:e $fn" --probe "p:m $fn+${off:-0}" \
					--probe "r:x $fn" -- "$W/$exe" $args
			else
				run_traced "$o" $mode -- "$W/$exe" $args
			fi
			same_run "$name ($cc $opt), $label: output and exit status" "$W/$exe.a" "$o" ||
				continue
			case $name/$mode in
			dl/-p\ function | dl/) counts "$name ($cc $opt), $label: exact calls" "$o.dat" "${DL[@]}" ;;
			close/-p\ function | close/) counts "$name ($cc $opt), $label: exact calls" "$o.dat" "${CLOSE[@]}" ;;
			exc/-p\ function | exc/) counts "$name ($cc $opt), $label: exact calls" "$o.dat" "${EXC[@]}" ;;
			jmp/-p\ function | jmp/) counts "$name ($cc $opt), $label: exact calls" "$o.dat" "${JMP[@]}" ;;
			esac
			if [ "$mode" = "-p nop" ]; then
				read -r we wx < <(want "$name" "$o")
				hits "$name ($cc $opt), $label" "$o" "${we:-?}" "${wx:-?}"
			fi
			# not checked: that the recorder says the program "closed utrace's
			# connection" (lib/record/recorder_proc.c decides it from whether
			# the process is still alive when it sees the hang-up; under load
			# it has often exited by then, and the line is missing)
		done
	done
done

# Return probes whose frames leave the thread's one list: co_step's
# stays open across swapcontext (4 coroutines x 2000 rounds; under
# function_graph, which follows the program stacks), and step runs in
# clone() threads without CLONE_SETTLS, on their creator's TLS (only the
# creator's 300000 calls are probed).  Both once exited with status 127,
# "a return probe lost its frame".
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	for p in "swap co_step 8000 -p function_graph" "clone step 300000 -p nop"; do
		read -r name fn n tracer <<<"$p"
		exe=$name$cc
		[ -x "$W/$exe-O2" ] || [ -x "$W/$exe-O0" ] || continue
		exe=$(cd "$W" && ls -d "$exe"-O? | head -1)
		run_traced "$W/$exe.r" $tracer --probe "r:x $fn" -- "$W/$exe"
		same_run "$name ($cc), $tracer, r: on $fn: output and exit status" "$W/$exe.a" \
			"$W/$exe.r" && hits "$name ($cc), $tracer, r: on $fn" "$W/$exe.r" - "$n"
	done
done

# Attached to (record -P): each program, held before its main
# (attach_held) until the recorder says it is attached, then let run:
# output and exit status as untraced, and the calls counted exactly where
# they are known, under both tracers.  The runtime is dlopen'ed there;
# runtime/late_bind.c binds the program's and its libraries' GOT slots of
# its interposers to them, without which raw clone() threads crashed the
# program under function_graph (their creator's shadow stack) and so did
# C++ exceptions (abort: the unwinder met the return hook), and under -p
# function a raw clone thread's shared TLS went unseen; function_graph
# stopped tracing the coroutines at their first switch.  A library
# dlopen'ed while attached is not traced (dl's counts are not checked).
if [ "$(id -u)" -ne 0 ] && [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)" != 0 ]; then
	unsupported "record -P: no permission to attach (ptrace_scope)"
else
	for cc in gcc clang; do
		case $cc in gcc) opt=-O2 ;; clang) opt=-O0 ;; esac
		for p in "${PROGS[@]}"; do
			read -r name src fn args <<<"$p"
			args=${args//@W@/$W}
			exe=$name$cc$opt
			[ -x "$W/$exe" ] || continue
			for mode in "-p function" "-p function_graph"; do
				o=$W/$exe.att
				# shellcheck disable=SC2086 # a mode is a list of options, args too
				attach_held "$o" $mode -- "$W/$exe" $args
				same_run "$name ($cc $opt), attached to, $mode: output and exit status" \
					"$W/$exe.a" "$o" || continue
				case $name in
				swap) counts "$name ($cc $opt), attached to, $mode: exact calls" "$o.dat" "${SWAP[@]}" ;;
				exc) counts "$name ($cc $opt), attached to, $mode: exact calls" "$o.dat" "${EXC[@]}" ;;
				jmp) counts "$name ($cc $opt), attached to, $mode: exact calls" "$o.dat" "${JMP[@]}" ;;
				esac
			done
		done
	done
fi

# A set-user-ID copy of a program, owned by nobody, run by root: the
# dynamic loader does not preload the runtime into it (secure mode), so
# it runs as untraced, and the recorder says why (no crash, no "build it
# with the flags").
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	build suid modes_jmp.c gcc -O2 &&
		cp "$W/suid" "$W/suid-copy" && chown nobody "$W/suid" && chmod 4755 "$W/suid" &&
		chmod 755 "$W" && {
		run_plain "$W/su.a" "$W/suid"
		check "set-user-ID program: its mode has the bit" test -u "$W/suid"
		for mode in "" "-p function" "--libcall"; do
			# shellcheck disable=SC2086 # a mode is a list of options
			run_traced "$W/su.b" $mode -- "$W/suid"
			same_run "set-user-ID program, ${mode:-function_graph}: output and exit status" \
				"$W/su.a" "$W/su.b"
			check "set-user-ID program, ${mode:-function_graph}: the recorder says it ran untraced" \
				grep -q "is set-user-ID: .* secure mode.* ran untraced" "$W/su.b.rec"
		done
		# the same program without the bit is traced
		run_traced "$W/su.c" -- "$W/suid-copy"
		same_run "its copy without the set-user-ID bit: output and exit status" "$W/su.a" "$W/su.c"
		check "its copy without the set-user-ID bit is traced" \
			test "$("$U" report -i "$W/su.c.dat" --profile 2>/dev/null | grep -c jmp_deep)" -ge 1
	}
else
	unsupported "set-user-ID program: needs root and a user nobody"
fi
