# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-dlopen.sh - in-process probes (--probe without PATH:),
# per configuration: probes-dlopen: probes in libplugin.so, loaded later
# with dlopen

e2e_cfg probes-dlopen probes check_probes_dlopen

check_probes_dlopen() {
	local want got mid
	# the second instruction: after the call site, an int3
	mid=$(probe_offsets plugin_helper "$BIN/libplugin.so" | awk '$1 >= 5 { print; exit }')
	probe_run probes-dlopen dlopen --probe 'p:ph plugin_helper x=%di:s32' \
		--probe 'r:pe plugin_entry ret=$retval:s32' --probe "p:pm plugin_helper+$mid" || return
	got=$(probe_vals pe | tr '\n' ' ')$(probe_vals ph | tr '\n' ' ')
	want=$(sed -n 's/^round .*(\([0-9]*\)) = \([0-9]*\),.*/ret=\2 /p' "$RES/u.out" | tr -d '\n')
	want=$want$(sed -n 's/^round .*(\([0-9]*\)) = .*/x=\1 x=\1/p' "$RES/u.out" |
		awk '{ split($2, b, "="); printf "%s x=%d ", $1, b[2] + 1 }')
	t "$([ "$want" = "$got" ] && [ "$(grep -c ' pm: ' "$RES/rep.txt")" = 4 ]; echo $?)" \
		"$CFG probes-dlopen probes in a library dlopen'ed later (twice)" "want: $want" "got: $got" "$(grep -E ' (ph|pe|pm): ' "$RES/rep.txt" | head -8)" "$(head -3 "$RES/t.err")"
}

# A dlclose while the probe helper is writing a jmp into the plugin: it
# waits until the helper is done (rt_objects_pin), instead of unmapping
# the text under the helper's stores.  The program spins on the probes
# for 60 ms before each dlclose, so the helper's promotion, held 100 ms
# between making the text writable and writing it, is under way then.
e2e_cfg probes-dlopen-unload probes check_probes_dlopen_unload

check_probes_dlopen_unload() {
	local mid

	# an int3 inside the function: the probe the helper promotes
	mid=$(probe_offsets plugin_helper "$BIN/libplugin.so" | awk '$1 >= 5 { print; exit }')
	DLOPEN_SPIN_MS=60 UTRACE_POKE_PAUSE_US=100000 UTRACE_KPROBE_DEBUG=1 \
		probe_run probes-dlopen-unload dlopen -p nop --probe "p:pm plugin_helper+$mid" || return
	t "$(grep -q 'kprobes: [1-9][0-9]* jump-optimised' "$RES/t.err"; echo $?)" \
		"$CFG probes-dlopen-unload the helper wrote its jmp while the program was about to dlclose" \
		"$(grep kprobes "$RES/t.err" | head -3)"
}
