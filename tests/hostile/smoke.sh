#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tests/hostile/smoke.sh - the tier's own check: a plain program behaves
# the same under every mode, and a deliberately different run is caught
# (so that same_run cannot pass everything).
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
need_built "$U" "$B/libutrace.so"

cat >"$W/plain.c" <<'C'
#include <stdio.h>
__attribute__((noinline)) int step(int x) { return x * 3 + 1; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 1000; i++)
		s = step(s) & 0xffff;
	printf("%d\n", s);
	return s & 7;
}
C
build plain "$W/plain.c" || exit 1
run_plain "$W/a" "$W/plain"
while read -r mode; do
	# shellcheck disable=SC2086 # a mode is a list of options
	run_traced "$W/b" $mode -- "$W/plain"
	same_run "plain program, $mode" "$W/a" "$W/b"
done < <(each_mode)
echo 99 >"$W/b.rc"
if same_run "x" "$W/a" "$W/b" >/dev/null; then
	notok "same_run tells a changed exit status"
else
	ok "same_run tells a changed exit status"
fi
