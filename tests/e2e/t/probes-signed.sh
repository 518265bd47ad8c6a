# SPDX-License-Identifier: MIT
#
# tests/e2e/t/probes-signed.sh - in-process probes (--probe without PATH:),
# per configuration: probes-signed: a signed fetch-arg narrower than an
# int prints as the kernel prints it (s8 and s16 of -6: -6; libtraceevent
# alone gives 250 and 65530), in the report and in the live trace's
# printer alike (lib/report/event_print.c)

e2e_cfg probes-signed probe_jit check_probes_signed

check_probes_signed() {
	local got
	probe_run probes-signed probe_jit -p nop \
		--probe 'p:sg six s8=%r9:s8 s16=%r9:s16 s32=%r9:s32 p8=%r8:s8 u8=%r9:u8' || return
	got=$(probe_vals sg | sort -u)
	t "$([ "$got" = "s8=-6 s16=-6 s32=-6 p8=5 u8=250" ]; echo $?)" \
		"$CFG probes-signed s8 and s16 print signed" "got: $got"
}
