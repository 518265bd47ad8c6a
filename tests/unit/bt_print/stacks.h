/* SPDX-License-Identifier: MIT */
/* stacks.bt's maps for test_bt_print.c: the frames as bpftrace resolved
 * them (the perf one under setarch -R, see regen.sh) */

static void test_stacks(void)
{
	static const char *const frames[] = {"syscall+25"};
	static const char *const perf[] = {
		"\t7fffef51f829 syscall+25 (/usr/lib/x86_64-linux-gnu/libc.so.6)"};
	static const struct utrace_bt_scalar st = {.kind = UTRACE_BT_STACK, .lines = frames,
						   .nlines = 1};
	static const struct utrace_bt_scalar ks[] = {st}, k1[] = {I(1)}, k2[] = {I(2)};
	static const struct utrace_bt_scalar kp[] = {
		{.kind = UTRACE_BT_STACK, .lines = perf, .nlines = 1}};
	static const struct utrace_bt_entry s[] = {{.key = ks, .n = 1}};
	static const struct utrace_bt_entry v[] = {{.key = k2, .value = st}, {.key = k1, .value = st}};
	static const struct utrace_bt_entry p[] = {{.key = kp, .value = I(1)}};
	static const struct utrace_bt_map maps[] = {
		{"@s", 1, UTRACE_BT_AGG_COUNT, .entries = s, .nentries = 1},
		{"@v", 1, UTRACE_BT_AGG_SCALAR, .entries = v, .nentries = N(v)},
		{"@p", 1, UTRACE_BT_AGG_SCALAR, .entries = p, .nentries = 1},
	};

	run_case("stacks", 1, NULL, 0, maps, N(maps));
}
