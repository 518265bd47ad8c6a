/* SPDX-License-Identifier: MIT */
/* maps.bt's maps for test_bt_print.c, entries in another order than printed */

static void test_maps(void)
{
	static const struct utrace_bt_scalar kz[] = {S("z")}, ky[] = {S("y")}, kx[] = {S("x")};
	static const struct utrace_bt_scalar kq[] = {S("q")}, kp[] = {S("p")}, kr[] = {S("r")};
	static const struct utrace_bt_scalar km1[] = {I(-1)}, k5[] = {I(5)}, k2[] = {I(2)};
	static const struct utrace_bt_scalar k1[] = {I(1)};
	static const struct utrace_bt_scalar kx2[] = {S("x"), I(2)}, ka5[] = {S("a"), I(5)},
					     kbm1[] = {S("b"), I(-1)};
	static const struct utrace_bt_scalar kj1[] = {S("a\"b\n\t")}, kj2[] = {S("\xc3\xa9")};
	static const struct utrace_bt_entry c[] = {
		{.key = ky, .n = 2}, {.key = kz, .n = 1}, {.key = kx, .n = 3}};
	static const struct utrace_bt_entry sum[] = {{.n = -7}}, mn[] = {{.n = -5}},
					    mx[] = {{.n = 9}}, av[] = {{.n = 2, .sum = 7}},
					    st[] = {{.n = 2, .sum = 7}};
	static const struct utrace_bt_entry ak[] = {{.key = kp, .n = 1, .sum = 2},
						    {.key = kq, .n = 1, .sum = 10},
						    {.key = kr, .n = 1, .sum = -6}};
	static const struct utrace_bt_entry sk[] = {{.key = kq, .n = 1, .sum = 10},
						    {.key = kp, .n = 2, .sum = 5}};
	static const struct utrace_bt_entry i[] = {
		{.key = k2, .value = I(30)}, {.key = km1, .value = I(10)}, {.key = k5, .value = I(20)}};
	static const struct utrace_bt_entry m[] = {{.key = kbm1, .value = I(7)},
						   {.key = ka5, .value = I(4)},
						   {.key = kx2, .value = I(3)}};
	static const struct utrace_bt_entry s[] = {{.key = km1, .value = S("neg")},
						   {.key = k2, .value = S("two")},
						   {.key = k1, .value = S("one")}};
	static const struct utrace_bt_entry n[] = {{.value = I(-42)}};
	static const struct utrace_bt_entry u[] = {
		{.key = k2, .value = {.kind = UTRACE_BT_SYM, .s = "0x1"}},
		{.key = k1, .value = {.kind = UTRACE_BT_SYM, .s = "0"}}};
	static const struct utrace_bt_entry j[] = {{.key = kj2, .value = I(2)},
						   {.key = kj1, .value = I(1)}};
	static const struct utrace_bt_map maps[] = {
		{"@c", 1, UTRACE_BT_AGG_COUNT, .entries = c, .nentries = N(c)},
		{"@sum", 0, UTRACE_BT_AGG_SUM, .entries = sum, .nentries = 1},
		{"@mn", 0, UTRACE_BT_AGG_MIN, .entries = mn, .nentries = 1},
		{"@mx", 0, UTRACE_BT_AGG_MAX, .entries = mx, .nentries = 1},
		{"@av", 0, UTRACE_BT_AGG_AVG, .entries = av, .nentries = 1},
		{"@st", 0, UTRACE_BT_AGG_STATS, .entries = st, .nentries = 1},
		{"@ak", 1, UTRACE_BT_AGG_AVG, .entries = ak, .nentries = N(ak)},
		{"@sk", 1, UTRACE_BT_AGG_STATS, .entries = sk, .nentries = N(sk)},
		{"@i", 1, UTRACE_BT_AGG_SCALAR, .entries = i, .nentries = N(i)},
		{"@m", 2, UTRACE_BT_AGG_SCALAR, .entries = m, .nentries = N(m)},
		{"@s", 1, UTRACE_BT_AGG_SCALAR, .entries = s, .nentries = N(s)},
		{"@n", 0, UTRACE_BT_AGG_SCALAR, .entries = n, .nentries = 1},
		{"@e", 1, UTRACE_BT_AGG_SCALAR, .entries = NULL, .nentries = 0},
		{"@u", 1, UTRACE_BT_AGG_SCALAR, .entries = u, .nentries = N(u)},
		{"@j", 1, UTRACE_BT_AGG_SCALAR, .entries = j, .nentries = N(j)},
	};
	/* print(@c, 2); print(@c, 0, 2); print(@ak, 1, 2); print(@sk, 1);
	 * print(@i, 2, 10); print(5); print("s\"x"); print(-7) */
	static const struct step steps[] = {
		{.map = &maps[0], .top = 2, .div = 0}, {.map = &maps[0], .top = 0, .div = 2}, {.map = &maps[6], .top = 1, .div = 2}, {.map = &maps[7], .top = 1, .div = 0},
		{.map = &maps[8], .top = 2, .div = 10}, {NULL, .value = I(5)}, {NULL, .value = S("s\"x")},
		{NULL, .value = I(-7)},
	};
	run_case("maps", 1, steps, N(steps), maps, N(maps));
}
