# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-fault.sh - in-process probes (--probe without PATH:),
# per configuration: probes-fault: a pointer that faults gives 0 and
# (fault), no crash

e2e_cfg probes-fault probes check_probes_fault

check_probes_fault() {
	probe_run probes-fault probes --probe 'p:pf fault_target v=+0(%di):u64 s=+0(%di):string w=+8(+0(%di)):u32' || return
	t "$([ "$(probe_vals pf)" = "v=0 s=(fault) w=0" ]; echo $?)" "$CFG probes-fault faults give 0 and (fault)" \
		"got: $(probe_vals pf)"
}
