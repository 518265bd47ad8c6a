# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-values.sh - in-process probes (--probe without PATH:),
# per configuration: probes-values: what the probes read equals what
# tests/progs/probes.c prints: registers, $argN, nested derefs, strings,
# bitfields, an array, $retval, @SYMBOL mid-function

e2e_cfg probes-values probes check_probes_values

check_probes_values() {
	local want got mid
	# the instruction after straight()'s call: counter is updated there
	mid=$(objdump -d --no-show-raw-insn "$BIN/probes" | awk '
		$2 == "<straight>:" { on = 1; base = strtonum("0x" $1); next }
		on && /^$/ { exit }
		on && after { a = $1; sub(":", "", a); print strtonum("0x" a) - base; exit }
		on && /call.*<callee>/ { after = 1 }')
	probe_run probes-values probes \
		--probe 'p:pv visit len=+8(%di):u32 nlen=+8(+0(%di)):u32 name=+0(+16(%di)):string k=%si:s64 flags=+24(%di):b3@0/32 kind=+24(%di):b4@3/32 arr=+28(%di):s32[4]' \
		--probe 'f:fa add a=$arg1:s32 b=$arg2:s32' \
		--probe 'f:fr add%return ret=$retval:s32' \
		--probe 'r:sr straight ret=$retval:s32 g=@counter:s32' \
		--probe "p:sm straight+$mid g=@counter:s32" \
		--probe 'p:gone callee' --probe '-:gone' || return
	want=$(sed -n 's/^visit //p' "$RES/u.out")
	got=$(probe_vals pv)
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" \
		"$CFG probes-values p: entry: registers, nested derefs, string, bitfields, array" "want: $want" "got: $got"
	want=$(sed -n 's/^add a=\([0-9-]*\) b=\([0-9-]*\) ret=.*/a=\1 b=\2/p' "$RES/u.out")
	got=$(probe_vals fa)
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$CFG probes-values f: \$argN" "want: $want" "got: $got"
	want=$(sed -n 's/^add .* ret=\([0-9-]*\)/ret=\1/p' "$RES/u.out")
	got=$(probe_vals fr)
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$CFG probes-values f:%return \$retval" "want: $want" "got: $got"
	want=$(sed -n 's/^straight x=.* counter=\([0-9-]*\) ret=\([0-9-]*\)/ret=\2 g=\1/p' "$RES/u.out")
	got=$(probe_vals sr)
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$CFG probes-values r: \$retval and @SYMBOL" "want: $want" "got: $got"
	want=$(sed -n 's/^straight x=.* counter=\([0-9-]*\) ret=.*/g=\1/p' "$RES/u.out")
	got=$(probe_vals sm)
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$CFG probes-values mid-function (straight+$mid) @SYMBOL" "want: $want" "got: $got"
	t "$(grep -q ' gone: ' "$RES/rep.txt"; [ $? = 1 ]; echo $?)" "$CFG probes-values -: removes an earlier probe"
	t "$([ "$(grep -cE ' sr: \(main\+0x[0-9a-f]+ <- straight\) ' "$RES/rep.txt")" = 3 ]; echo $?)" \
		"$CFG probes-values r: prints (CALLER <- FUNC)" "$(grep -m1 ' sr: ' "$RES/rep.txt")"
}
