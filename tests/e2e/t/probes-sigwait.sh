# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-sigwait.sh - in-process probes (--probe without PATH:),
# per configuration: probes-sigwait: a thread waits in sigwait() for every
# signal, the others block them all: the runtime's question to the threads
# never reaches the program (the probe stays an int3), output and counts
# unchanged

e2e_cfg probes-sigwait probes check_probes_sigwait

check_probes_sigwait() {
	local rounds got
	rounds=$(sed -n 's/^#define ROUNDS \([0-9]*\)/\1/p' "$PROGS/sigwait_dlopen.c")
	UTRACE_KPROBE_DEBUG=1 probe_run probes-sigwait sigwait_dlopen \
		--probe "p:sw plugin_helper+$(probe_offsets plugin_helper "$BIN/libplugin.so" | awk '$1 >= 5 { print; exit }')" || return
	got=$(grep -c ' sw: ' "$RES/rep.txt")
	t "$([ "$got" = $((2 * rounds)) ] && grep -q '^sigwait got 10$' "$RES/t.out"; echo $?)" \
		"$CFG probes-sigwait the program's sigwait gets only its SIGUSR1; $((2 * rounds)) hits" \
		"hits: $got" "$(grep sigwait "$RES/t.out")" "$(grep 'utrace\[' "$RES/t.err" | head -2)"
}
