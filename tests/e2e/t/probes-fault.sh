# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-fault.sh - in-process probes (--probe without PATH:),
# per configuration: probes-fault: a pointer that faults gives 0 and
# (fault), no crash; probes-inplace: probes alone at their address whose
# copies fill the record (fetched straight into the ring by the plain hit,
# runtime/inproc_probes.c), a fault among them and records that end
# mid-word

e2e_cfg probes-fault probes check_probes_fault
e2e_cfg probes-inplace probes check_probes_inplace

check_probes_fault() {
	probe_run probes-fault probes --probe 'p:pf fault_target v=+0(%di):u64 s=+0(%di):string w=+8(+0(%di)):u32' || return
	t "$([ "$(probe_vals pf)" = "v=0 s=(fault) w=0" ]; echo $?)" "$CFG probes-fault faults give 0 and (fault)" \
		"got: $(probe_vals pf)"
}

check_probes_inplace() {
	local want got
	probe_run probes-inplace probes --probe 'p:pq fault_target p=%di:u64 v=+0(%di):u64 c=+8(%di):u8' \
		--probe 'p:pc callee x=%di:u8 y=%di:s16 z=$arg1:u32' || return
	got=$(probe_vals pq)
	t "$([ "$got" = "p=16 v=0 c=0" ]; echo $?)" "$CFG probes-inplace a fault in place gives 0" "got: $got"
	want=$(sed -n 's/^straight x=\([0-9]*\) .*/x=\1 y=\1 z=\1/p' "$RES/u.out")
	got=$(probe_vals pc)
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$CFG probes-inplace a record of 23 bytes" \
		"want: $want" "got: $got"
}
