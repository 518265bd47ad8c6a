/* SPDX-License-Identifier: MIT */
/* hist.bt's maps for test_bt_print.c: buckets filled as bpftrace's hist()
 * and lhist() fill them, keys in another order than printed */

static void hist_add(uint64_t *b, int64_t v)
{
	int k = 2;

	if (v < 0) {
		b[0]++;
		return;
	}
	if (v == 0) {
		b[1]++;
		return;
	}
	while (v > 1)
		v >>= 1, k++;
	b[k]++;
}

static void lhist_add(uint64_t *b, int64_t v, int64_t min, int64_t max, int64_t step)
{
	int64_t n = (max - min) / step + 2;

	b[v < min ? 0 : v >= max ? n - 1 : (v - min) / step + 1]++;
}

static void test_hist(void)
{
	static uint64_t h[UTRACE_BT_HIST_BUCKETS], k1[UTRACE_BT_HIST_BUCKETS],
		k256[UTRACE_BT_HIST_BUCKETS], k2[UTRACE_BT_HIST_BUCKETS],
		k3[UTRACE_BT_HIST_BUCKETS], r[UTRACE_BT_HIST_BUCKETS];
	static uint64_t l[12], lka[6], lkb[6], km[6], ln[5];
	/* zero(@z), zero(@zl), zero(@zc): every bucket and count 0 */
	static const uint64_t z[UTRACE_BT_HIST_BUCKETS], zl[12];
	static const struct utrace_bt_scalar kza[] = {S("a")};
	static const struct utrace_bt_entry ez[] = {{.buckets = z}}, ezl[] = {{.buckets = zl}},
					    ezc[] = {{.key = kza, .n = 0}};
	static const int64_t hv[] = {-1, 0, 1, 1, 5, 1030, 1048577, 2147483648};
	static const struct utrace_bt_scalar ki1[] = {I(1)}, ki256[] = {I(256)}, ki2[] = {I(2)},
					     ki3[] = {I(3)}, ka[] = {S("a")}, kb[] = {S("b")};
	static const struct utrace_bt_entry eh[] = {{.buckets = h}}, er[] = {{.buckets = r}},
					    el[] = {{.buckets = l}}, ekm[] = {{.buckets = km}},
					    eln[] = {{.buckets = ln}};
	static const struct utrace_bt_entry ek[] = {{.key = ki3, .buckets = k3},
						    {.key = ki2, .buckets = k2},
						    {.key = ki1, .buckets = k1},
						    {.key = ki256, .buckets = k256}};
	static const struct utrace_bt_entry elk[] = {{.key = kb, .buckets = lkb},
						     {.key = ka, .buckets = lka}};
	static const struct utrace_bt_map maps[] = {
		{"@h", 0, UTRACE_BT_AGG_HIST, .entries = eh, .nentries = 1},
		{"@k", 1, UTRACE_BT_AGG_HIST, .entries = ek, .nentries = N(ek)},
		{"@r", 0, UTRACE_BT_AGG_HIST, .entries = er, .nentries = 1},
		{"@l", 0, UTRACE_BT_AGG_LHIST, 0, 100, 10, .entries = el, .nentries = 1},
		{"@lk", 1, UTRACE_BT_AGG_LHIST, 0, 4096, 1024, .entries = elk, .nentries = N(elk)},
		{"@km", 0, UTRACE_BT_AGG_LHIST, 0, 4194304, 1048576, .entries = ekm, .nentries = 1},
		{"@ln", 0, UTRACE_BT_AGG_LHIST, 3, 9, 2, .entries = eln, .nentries = 1},
		{"@zl", 0, UTRACE_BT_AGG_LHIST, 0, 100, 10, .entries = ezl, .nentries = 1},
		{"@z", 0, UTRACE_BT_AGG_HIST, .entries = ez, .nentries = 1},
		{"@zc", 1, UTRACE_BT_AGG_COUNT, .entries = ezc, .nentries = 1},
	};
	/* print(@k, 2, 2); print(@h, 0, 3); print(@lk, 1) */
	static const struct step steps[] = {{.map = &maps[1], .top = 2, .div = 2}, {.map = &maps[0], .top = 0, .div = 3}, {.map = &maps[4], .top = 1, .div = 0}};

	for (size_t i = 0; i < N(hv); i++)
		hist_add(h, hv[i]);
	hist_add(k1, 3), hist_add(k256, 3), hist_add(k2, 3), hist_add(k3, 100), hist_add(k3, 1);
	for (int i = 0; i < 3; i++)
		hist_add(r, 1);
	for (int i = 0; i < 7; i++)
		hist_add(r, 2);
	hist_add(r, 4);
	lhist_add(l, 5, 0, 100, 10), lhist_add(l, 150, 0, 100, 10), lhist_add(l, -3, 0, 100, 10);
	lhist_add(lka, 2048, 0, 4096, 1024);
	lhist_add(lkb, 5000, 0, 4096, 1024), lhist_add(lkb, 100, 0, 4096, 1024);
	lhist_add(km, 3145728, 0, 4194304, 1048576), lhist_add(km, 1048576, 0, 4194304, 1048576);
	lhist_add(ln, 7, 3, 9, 2), lhist_add(ln, 1, 3, 9, 2), lhist_add(ln, 9, 3, 9, 2);
	run_case("hist", 1, steps, N(steps), maps, N(maps));
}
