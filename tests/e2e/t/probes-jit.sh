# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-jit.sh - in-process probes (--probe without PATH:),
# per configuration: probes-jit: entry probes alone at their site, whose
# hits run as stubs compiled for them (runtime/inproc_probe_jit.c):
# tests/progs/probe_jit.c's results unchanged (every argument register
# and a variadic call's rax come through), each value as the program says
# (every size, signed, bit-fields, a faulting pointer, an offset past 32
# bits), and every record the one the C way writes (UTRACE_PROBE_JIT=0),
# here and with -p function (the tracer's entry first: the stub hands over);
# probes-jit-mid: a probe in the middle of a function (a jmp to a detour,
# whose stub keeps every register and the flags: flagsy's probe sits
# where they are live, dfy's where DF is set, also under utrace bt, and
# the program's results stay as untraced), its records the C way's; and
# a return probe on flagret, which returns a condition in the flags

e2e_cfg probes-jit probe_jit check_probes_jit
e2e_cfg probes-jit-mid probe_jit check_probes_jit_mid

JIT_SIX='p:six six a=%di:s64 b=%si:u32 c=%dx:u16 d=%cx:u8 e=%r8:x64 f=%r9:u8 k=\7:u32'
JIT_VMIX='p:vs vmix n=%di:s32 sp=+0(%sp):x64'
JIT_FIELDS='p:fl fields a=+0(%di):u8 b=+2(%di):u16 c=+4(%di):u32 d=+8(%di):u64 lo=+16(%di):b3@0/32 mid=+16(%di):b7@3/32 neg=+20(%di):s32 far=+4294967296(%di):u8 k=%si:s64'

# jit_want EVENT WORD: EVENT's values equal the program's "want" lines that
# follow its WORD lines
jit_want() {
	local want got
	want=$(awk -v w="$2" '$1 == w { getline; if ($1 == "want") { sub(/^want /, ""); print } }' "$RES/u.out")
	got=$(probe_vals "$1")
	t "$([ -n "$want" ] && [ "$want" = "$got" ]; echo $?)" "$CFG probes-jit $1 reads what the program passed" \
		"want: $want" "got: $got"
}

# the records of every event but their task, CPU and time
jit_records() { sed -n 's/^.*[0-9]: \([a-z]*: (.*\)$/\1/p' "$RES/rep.txt"; }

check_probes_jit() {
	local jit way
	for way in nop function; do
		probe_run probes-jit probe_jit -p "$way" --probe "$JIT_SIX" --probe "$JIT_VMIX" \
			--probe "$JIT_FIELDS" || return
		jit_want six six
		jit_want fl fields
		t "$([ "$(probe_vals vs | cut -d' ' -f1 | paste -sd' ')" = "n=3 n=3 n=3" ]; echo $?)" \
			"$CFG probes-jit ($way) vmix's three calls" "$(probe_vals vs)"
		jit=$(jit_records | grep -v '^vs: ') # vs's sp: the stack, where ASLR put it
		UTRACE_PROBE_JIT=0 probe_run probes-jit probe_jit -p "$way" --probe "$JIT_SIX" \
			--probe "$JIT_VMIX" --probe "$JIT_FIELDS" || return
		t "$([ "$(printf '%s\n' "$jit" | grep -c .)" = 6 ] && [ "$jit" = "$(jit_records | grep -v '^vs: ')" ]; echo $?)" \
			"$CFG probes-jit ($way) records as the C way's" \
			"$(diff <(printf '%s\n' "$jit") <(jit_records | grep -v '^vs: ') | head -5)"
	done
}

# after_nop FUNC INSN: the offset in FUNC of its 5-byte nop after INSN
# (flagsy's add: the flags live; dfy's std: DF set)
after_nop() {
	objdump -d --no-show-raw-insn "$BIN/probe_jit" | awk -v f="<$1>:" -v i="^$2" '
		$2 == f { on = 1; base = strtonum("0x" $1); next }
		on && /^$/ { exit }
		on && $2 ~ i { seen = 1; next }
		on && seen && $2 ~ /^nop/ { a = $1; sub(":", "", a); print strtonum("0x" a) - base; exit }'
}

# bt_dfy OFF: a bt program the interpreter runs (a predicate) and a
# straight one on dfy's probe where DF is set, compiled and not: the
# program's results as untraced, each hit counted
bt_dfy() {
	local prog jit out
	for prog in "/arg0 >= 0/ { @c = count(); }" "{ @c = count(); }"; do
		for jit in 1 0; do
			out=$(cd "$RUN" && UTRACE_PROBE_JIT=$jit timeout -k 5 "$TMO" "$UTRACE" bt \
				-e "uprobe:$BIN/probe_jit:dfy+$1 $prog" -o "$RES/bt.out" -c "$BIN/probe_jit" \
				2>"$RES/bt.err")
			t "$([ "$out" = "$(cat "$RES/u.out")" ] && grep -qx '@c: 3' "$RES/bt.out"; echo $?)" \
				"$CFG probes-jit-mid bt '$prog' where DF is set (UTRACE_PROBE_JIT=$jit)" \
				"$(grep '@c' "$RES/bt.out")" "$(diff <(printf '%s\n' "$out") "$RES/u.out" | head -3)" \
				"$(head -3 "$RES/bt.err")"
		done
	done
}

check_probes_jit_mid() {
	local mid mid2 mid3 mid4 probe probe2 probe3 probe4 jit
	mid=$(probe_offsets six "$BIN/probe_jit" | awk '$1 >= 5 { print; exit }')
	mid2=$(probe_offsets fields "$BIN/probe_jit" | awk '$1 >= 5 { print; exit }')
	mid3=$(after_nop flagsy add)
	mid4=$(after_nop dfy std)
	probe="p:ms six+$mid s=%si:s64 d=%dx:u64 c=%cx:u64 r8=%r8:x64 r9=%r9:u16 f=%flags:x64 k=\\9:u8"
	probe2="p:mf fields+$mid2 k=%si:s64 f=%flags:x64 v=+4(%di):u32"
	probe3="p:mg flagsy+$mid3 f=%flags:x64"
	probe4="p:md dfy+$mid4 a=%di:s64" # (its arithmetic flags are the caller's: dead)
	probe_run probes-jit-mid probe_jit -p nop --probe "$probe" --probe "$probe2" --probe "$probe3" \
		--probe "$probe4" --probe 'r:fr flagret' || return
	jit=$(jit_records)
	t "$([ "$(printf '%s\n' "$jit" | grep -c '^fr: ')" = 6 ]; echo $?)" \
		"$CFG probes-jit-mid flagret's return probe, whose caller reads the flags it returns, took its hits" \
		"$(printf '%s\n' "$jit" | grep -c '^fr: ') records"
	t "$([ "$(printf '%s\n' "$jit" | grep -c '^mg: ')" = 6 ]; echo $?)" \
		"$CFG probes-jit-mid flagsy's probe, where the flags are live, took its hits" \
		"$(printf '%s\n' "$jit" | grep -c '^mg: ') records"
	t "$([ "$(printf '%s\n' "$jit" | grep -c '^md: ')" = 3 ]; echo $?)" \
		"$CFG probes-jit-mid dfy's probe, where DF is set, took its hits" \
		"$(printf '%s\n' "$jit" | grep -c '^md: ') records"
	bt_dfy "$mid4"
	# a filter sends each hit from the stub back to the C way, the flags
	# changed by its checks: the trampoline's own way puts them back
	probe_run probes-jit-mid probe_jit -p nop --probe "$probe3" -e probes:mg -f 'f >= 0' || return
	t "$([ "$(jit_records | grep -c '^mg: ')" = 6 ]; echo $?)" \
		"$CFG probes-jit-mid flagsy's probe, filtered (the stub hands over), took its hits" \
		"$(jit_records | grep -c '^mg: ') records"
	UTRACE_PROBE_JIT=0 probe_run probes-jit-mid probe_jit -p nop --probe "$probe" --probe "$probe2" \
		--probe "$probe3" --probe "$probe4" --probe 'r:fr flagret' || return
	t "$([ "$(printf '%s\n' "$jit" | grep -c .)" = 21 ] && [ "$jit" = "$(jit_records)" ]; echo $?)" \
		"$CFG probes-jit-mid records as the C way's" "$(diff <(printf '%s\n' "$jit") <(jit_records) | head -5)"
}
