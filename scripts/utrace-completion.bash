# SPDX-License-Identifier: MIT
# bash completion for utrace, installed as
# PREFIX/share/bash-completion/completions/utrace.  The commands come from
# `utrace --help`; each command's options from `utrace COMMAND
# --complete-options`, which prints the very tables the command parses
# (cmds/complete.c: "NAME ARG", ARG 1 when the option takes a value), so
# nothing here is scraped from help prose or kept by hand.  Values are
# completed where they are a known set: tracers, events, .dat files.

# _utrace_takes_value CMD WORD: the option WORD of CMD takes a value
_utrace_takes_value() {
	utrace "$1" --complete-options 2>/dev/null | awk -v w="$2" '$1 == w && $2 == 1 { f = 1 } END { exit !f }'
}

# _utrace_events: the events of the program after "--" (or -f/-e's), and
# the kernel's when tracefs can be read
_utrace_events() {
	local i prog=
	for ((i = 2; i < ${#COMP_WORDS[@]}; i++)); do
		if [ "${COMP_WORDS[i]}" = -- ] && [ -n "${COMP_WORDS[i + 1]}" ]; then
			prog=${COMP_WORDS[i + 1]}
			break
		fi
	done
	[ -n "$prog" ] && utrace list -e "$prog" 2>/dev/null
	cat /sys/kernel/tracing/available_events 2>/dev/null
}

# _utrace_value CMD OPTION: the values OPTION of CMD takes, if a known set
_utrace_value() {
	case "$1:$2" in
	record:-p | record:--tracer | start:-p | start:--tracer | stream:-p | stream:--tracer)
		echo nop function function_graph ;;
	record:-O | record:--option | start:-O | start:--option | stream:-O | stream:--option)
		echo funcgraph-args funcgraph-retval ;;
	*:--call-graph) echo fp dwarf ;;
	record:-e | record:--event | start:-e | start:--event | stream:-e | stream:--event)
		_utrace_events ;;
	*) return 1 ;;
	esac
}

_utrace() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} cmd=${COMP_WORDS[1]} w i
	if [ "$COMP_CWORD" -eq 1 ]; then
		mapfile -t COMPREPLY < <(compgen -W "$(utrace --help 2>/dev/null |
			awk '/^Commands:/ { f = 1; next } f && /^  [a-z]/ { print $1 }') --help --version" -- "$cur")
		return
	fi
	# after "--": the command to run, then its own arguments
	for ((i = 2; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		if [ "$w" = -- ]; then
			if [ $((i + 1)) -eq "$COMP_CWORD" ]; then
				mapfile -t COMPREPLY < <(compgen -c -- "$cur")
			else
				mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			fi
			return
		fi
	done
	if [[ $prev == -* ]] && _utrace_takes_value "$cmd" "$prev"; then
		case $prev in
		-i | --input) # a recording
			mapfile -t COMPREPLY < <(compgen -f -X '!*.dat' -- "$cur"; compgen -d -- "$cur") ;;
		*)
			if w=$(_utrace_value "$cmd" "$prev"); then
				mapfile -t COMPREPLY < <(compgen -W "$w" -- "$cur")
			else
				mapfile -t COMPREPLY < <(compgen -f -- "$cur")
			fi ;;
		esac
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(utrace "$cmd" --complete-options 2>/dev/null |
			awk '{ print $1 }')" -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -F _utrace utrace
