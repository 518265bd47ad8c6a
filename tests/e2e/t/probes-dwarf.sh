# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-dwarf.sh - in-process probes, per configuration:
# probes-dwarf: probe arguments by source names (lib/probes/dwarf.h)

e2e_cfg probes-dwarf probes check_probes_dwarf

# Source names in-process (lib/probes/dwarf.h): the walk() probe of
# tests/kernel/dwarf_probes.sh, here without the kernel; dwarfargs prints
# what each name holds.  At -O0 the probe moves past walk's prologue (a
# mid-function probe), at -O2 it stays on the entry.
check_probes_dwarf() {
	local want got
	probe_run probes-dwarf dwarfargs -p nop --probe 'p:walk walk count p->next->len buf:string p->arr[2] p->flag p->mode p->name:string nn=p->next->name:string counter' || return
	want=$(sed -n 's/^count=\([0-9]*\) len=[0-9]* next_len=\([0-9]*\) arr2=\([0-9]*\) flag=\([0-9]*\) mode=\([0-9]*\) name=\([a-z]*\) next_name=\([a-z]*\) counter=\([0-9]*\)$/count=\1 len=\2 buf_string=hello arr=\3 flag=\4 mode=\5 name=\6 nn=\7 counter=\8/p' "$RES/u.out")
	got=$(probe_vals walk)
	t "$([ -n "$want" ] && [ "$got" = "$want" ]; echo $?)" \
		"$CFG probes-dwarf values by DWARF names are the ones the program printed" \
		"want: $want" "got: $got" "$(head -3 "$RES/t.err")"
}
