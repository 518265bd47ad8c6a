#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/crash_core.sh - record --dump-on-crash keeps a crash's core
# dump (issue 28): tests/progs/crashdump.c dies of SIGSEGV, of abort(),
# and of SIGSEGV after its own SA_RESETHAND handler ran; with cores
# allowed, the untraced run dumps a core exactly when the traced one does
# (the runtime's handler gives a fault back to its instruction with the
# default disposition, so the kernel dumps it as untraced), and the
# status is the same.  The e2e tier cannot tell: its runner forbids cores.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"
command -v python3 >/dev/null || { unsupported "no python3"; exit 0; }
(ulimit -c unlimited) 2>/dev/null || { unsupported "cores cannot be allowed here (ulimit -c)"; exit 0; }

build crashdump "$ROOT/tests/progs/crashdump.c" gcc -O2 "-I$ROOT/tests/progs" || exit 1

# core_of CMD...: "STATUS CORE" of CMD run with cores allowed, in $W/cores
core_of() {
	mkdir -p "$W/cores"
	(cd "$W/cores" && ulimit -c unlimited && python3 -c 'import os, subprocess, sys
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
st = os.waitpid(p.pid, 0)[1]
print(128 + os.WTERMSIG(st) if os.WIFSIGNALED(st) else os.WEXITSTATUS(st), int(os.WCOREDUMP(st)))' "$@")
	rm -rf "$W/cores"
}

for how in deep abort own; do
	plain=$(core_of "$W/crashdump" "$how")
	# utrace record ends as the command ended but makes no core of its
	# own: its summary says whether the command's was dumped
	{ (cd "$W" && ulimit -c unlimited &&
		"$U" record --dump-on-crash -o "$W/$how.dat" -- "$W/crashdump" "$how" \
			>/dev/null 2>"$W/$how.err"); } 2>/dev/null
	rc=$?
	traced="$rc $(grep -c 'was killed by signal [0-9]* (.*), core dumped$' "$W/$how.err")"
	rm -f "$W"/core*
	if [ "$plain" = "$traced" ] && [ "${plain#* }" = 1 ]; then
		ok "crashdump $how: status and core as untraced ($plain)"
	else
		notok "crashdump $how: status and core as untraced"
		echo "#   untraced: status, core: $plain; traced: $traced"
		grep '^utrace record:' "$W/$how.err" | sed 's/^/#   /'
	fi
	check "crashdump $how: the dump was printed" grep -q '^Dumping the last' "$W/$how.err"
done
