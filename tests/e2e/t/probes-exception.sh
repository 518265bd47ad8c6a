# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-exception.sh - in-process probes, per configuration:
# probes-exception: C++ exceptions thrown through functions whose return a
# probe hooked

e2e_cfg probes-exception probes check_probes_exception

# C++ exceptions thrown through functions whose return a probe hooked:
# the unwinder gets the real return addresses back, the program runs as
# untraced; a return that is not unwound still fires
check_probes_exception() {
	probe_run probes-exception exception --probe 'r:r5 _Z6level5i' --probe 'f:l5 _Z6level5i' \
		--probe 'r:rh _Z6handleRK5Error r=$retval:s32' || return
	t "$([ "$(grep -c ' l5: ' "$RES/rep.txt")" -gt 0 ] && [ "$(grep -c ' rh: ' "$RES/rep.txt")" -gt 0 ] &&
		[ "$(grep -c ' r5: ' "$RES/rep.txt")" = 0 ]; echo $?)" \
		"$CFG probes-exception entries fire, returns unwound by the exception do not" \
		"$(grep -E ' (l5|r5|rh): ' "$RES/rep.txt" | head -5)"
}
