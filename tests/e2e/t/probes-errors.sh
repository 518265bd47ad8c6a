# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-errors.sh - in-process probes (--probe without PATH:),
# per configuration: probes-errors: bad definitions: the kernel's message
# and column (the first configuration only)

e2e_cfg probes-errors probes check_probes_errors

check_probes_errors() {
	[ "$CFG" = "$GOLDEN_CFG" ] || return 0
	local d=$OUT/$CFG/res/probes-errors def want out st
	mkdir -p "$d"
	while IFS='|' read -r def want; do
		out=$("$UTRACE" record -o "$d/x.dat" --probe "$def" -- "$BIN/probes" 2>&1 >/dev/null)
		st=$?
		t "$([ $st != 0 ] && [[ $out == *"$want"* ]]; echo $?)" "$CFG probes-errors '$def'" "status $st: $out" "want: $want"
	done <<'EOF'
p:e visit+4 $arg1|$arg* can be used only on function entry or exit at column 13
p:e visit %xx|Invalid register name at column 11
r:e add $stack:string|String accepts only memory argument at column 16
p:e add +8(%di|Dereference brace is not closed at column 15
x:e add|Probe type must be 'p' or 'r' at column 1
EOF
}
