#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/unit/bt_print/regen.sh - writes the goldens test_bt_print.c compares
# lib/bt/bt_print.c's output with: each NAME.bt run by bpftrace 0.17 (as
# root, --unsafe for system(), in this folder for cat()), its stdout, in
# text (NAME.txt) and json (NAME.json).  Rerun after changing a NAME.bt, and
# change the maps test_bt_print.c builds for it to match.
set -eu
cd "$(dirname "$0")"
bpftrace --version | grep -q 'v0\.17\.' || { echo "regen.sh: needs bpftrace 0.17" >&2; exit 1; }
for bt in *.bt; do
	n=${bt%.bt}
	setarch -R bpftrace --unsafe "$bt" 2>/dev/null >"$n.txt"
	setarch -R bpftrace --unsafe -f json "$bt" 2>/dev/null >"$n.json"
done
