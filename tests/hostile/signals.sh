#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/signals.sh - the command starts with the signal
# dispositions and mask `utrace record` was started with (issue 21, item
# 11): a producer whose reader goes dies of SIGPIPE as it does untraced, a
# SIG_IGN handed down (nohup, a background job) reaches it, and so does a
# blocked signal.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"
command -v setsid >/dev/null || { unsupported "no setsid(1)"; exit 0; }

for p in signals_run signals_show signals_yes signals_group; do
	build $p $p.c || exit 1
done

# { PRODUCER; echo $?; } | head -n 2, the status and the producer's
# stderr kept: OUT.rc, OUT.err (without the recorder's lines)
pipe_run() { # pipe_run OUT CMD...
	local o=$1
	shift
	{ "$@" 2>"$o.err2"; echo $? >"$o.rc"; } | head -n 2 >"$o.out"
	grep -vE '^utrace( [a-z]+)?(\[[0-9]+\])?:' "$o.err2" >"$o.err"
}

same_pipe() { # same_pipe WHAT A B
	if same_run "$1" "$2" "$3" && ! cmp -s "$2.err" "$3.err"; then
		echo "#   the producer's stderr differs:"
		diff "$2.err" "$3.err" | head -5 | sed 's/^/#   /'
	fi
}

for prod in "$W/signals_yes" yes; do
	pipe_run "$W/pa" "$prod"
	while read -r mode; do
		# shellcheck disable=SC2086 # a mode is a list of options
		pipe_run "$W/pb" "$U" record -o "$W/pb.dat" $mode -- "$prod"
		if cmp -s "$W/pa.rc" "$W/pb.rc" && cmp -s "$W/pa.err" "$W/pb.err" &&
			cmp -s "$W/pa.out" "$W/pb.out"; then
			ok "$(basename "$prod") | head: dies of SIGPIPE as untraced, $mode"
		else
			notok "$(basename "$prod") | head: dies of SIGPIPE as untraced, $mode"
			echo "#   status $(cat "$W/pa.rc") untraced, $(cat "$W/pb.rc") traced"
			sed 's/^/#   traced stderr: /' "$W/pb.err" | head -3
		fi
	done < <(each_mode)
done

# SIGHUP (1) and SIGINT (2) ignored, SIGUSR1 (10) and SIGUSR2 (12) blocked
inherit=(-i 1 -i 2 -b 10 -b 12)
run_plain "$W/sa" "$W/signals_run" "${inherit[@]}" -- "$W/signals_show"
check "signals_show prints its SigIgn and SigBlk" grep -q SigBlk "$W/sa.out"
while read -r mode; do
	# shellcheck disable=SC2086
	run_plain "$W/sb" "$W/signals_run" "${inherit[@]}" -- \
		"$U" record -o "$W/sb.dat" $mode -- "$W/signals_show"
	same_run "ignored and blocked signals inherited, $mode" "$W/sa" "$W/sb"
	# nothing inherited: utrace's own SIGPIPE does not leak either.
	# run_traced bounds the run with timeout(1), which installs handlers
	# for SIGINT, SIGQUIT, SIGHUP and SIGTERM even where they were
	# ignored, so its command starts with them at SIG_DFL: a suite run in
	# the background (SIGINT and SIGQUIT ignored) saw that as utrace's
	# doing.  The untraced side goes through the same timeout.
	run_plain "$W/na" timeout -k 5 "${HOSTILE_LIMIT:-120}" "$W/signals_show"
	# shellcheck disable=SC2086
	run_traced "$W/nb" $mode -- "$W/signals_show"
	same_run "no signal ignored or blocked but the program's, $mode" "$W/na" "$W/nb"
done < <(each_mode)

# nohup: a hang-up (or a Ctrl-C a background job ignores) sent to the
# whole process group, the recorder's included: the command goes on as
# untraced; under nohup the recording goes on too (a SIGINT ends it, as
# it ends trace-cmd and perf record: only the command must not notice)
for sig in 1 2; do
	setsid -w "$W/signals_run" -i $sig -- "$W/signals_group" $sig >"$W/ga.out" 2>"$W/ga.err"
	echo $? >"$W/ga.rc"
	while read -r mode; do
		# shellcheck disable=SC2086
		setsid -w "$W/signals_run" -i $sig -- "$U" record -o "$W/gb.dat" $mode -- \
			"$W/signals_group" $sig >"$W/gb.out" 2>"$W/gb.err"
		echo $? >"$W/gb.rc"
		grep -E '^utrace( [a-z]+)?:' "$W/gb.err" >"$W/gb.rec"
		same_run "signal $sig ignored from the start: the command goes on, $mode" \
			"$W/ga" "$W/gb"
		[ $sig = 1 ] && check "SIGHUP ignored: the recording goes on, it has the command's calls ($mode)" \
			eval "\"$U\" report -i \"$W/gb.dat\" 2>/dev/null | grep -q step"
	done < <(each_mode)
done

# SIGCHLD ignored (17): the command still inherits it, and the recorder,
# which waits for its command, still sees it end (timeout: a hang's bound)
# (the untraced side under the same timeout: see above)
run_plain "$W/ca" timeout 120 "$W/signals_run" -i 17 -- "$W/signals_show"
while read -r mode; do
	# shellcheck disable=SC2086
	run_plain "$W/cb" timeout 120 "$W/signals_run" -i 17 -- \
		"$U" record -o "$W/cb.dat" $mode -- "$W/signals_show"
	same_run "SIGCHLD ignored: inherited, and the recording ends with the command, $mode" \
		"$W/ca" "$W/cb"
done < <(each_mode)
