# SPDX-License-Identifier: MIT
# bash completion for utrace, installed as
# PREFIX/share/bash-completion/completions/utrace.  The commands come from
# `utrace --help` and each command's options from `utrace COMMAND --help`,
# so the help texts stay the one list of them.
_utrace() {
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[1]} w i
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
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(utrace "$cmd" --help 2>/dev/null |
			grep -oE -- '(^|[ ,])--?[a-zA-Z][-a-zA-Z0-9]*' | tr -d ' ,' | sort -u)" -- "$cur")
		return
	fi
	mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -F _utrace utrace
