/* SPDX-License-Identifier: MIT */
/*
 * bt_session_inproc.c - the uprobe actions that run at the hit, in the
 * traced program (issue 27), beside those bt_session.c replays.
 *
 * A site whose action only aggregates (bt_inproc_refusal) gets its
 * program sent with its probe (lib/record, UTRACE_MSG_BT), and the
 * runtime (runtime/bt_probe.c) runs it at each hit into the tables of
 * one memfd made here, one table per map of the program (common/
 * bt_table.h): the hit writes no record.  When the command ends the
 * tables are read into the tool's maps, which the replayed sites fill
 * too (every aggregation adds up, in any order).  That holds only while
 * nothing looks at a map between two hits: if a replayed site reads a
 * map, deletes from one, prints, clears or zeroes one, or exits, or an
 * interval runs, every site is replayed, in time order, as before.
 *
 * A replayed site whose action reads the program's memory at addresses
 * computed at run time (bt_code.hit_reads: `$n = $n->next`) gets its
 * program sent too, as a capture program: the runtime runs it at the
 * hit for those reads alone and appends them to the hit's record, from
 * which bt_session.c's run of the action reads them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/bt/bt_inproc.h"
#include "lib/bt/bt_run_internal.h"
#include "lib/record/recorder.h"

static bool is_uprobe(const struct bt_site *s)
{
	return s->type == BT_P_UPROBE || s->type == BT_P_URETPROBE;
}

/* Whether a replayed site leaves the maps alone until the end: it may
 * aggregate and write records, but not read a map or order one about. */
static bool replay_leaves_maps(const struct bt_code *c)
{
	const struct utrace_bt_hdr *h = c->prog;
	const struct utrace_bt_insn *in = utrace_bt_insns(h);

	for (uint32_t i = 0; i < h->nr_insns; i++)
		if (in[i].op == UTRACE_BOP_MGET || in[i].op == UTRACE_BOP_MDEL ||
		    (in[i].op == UTRACE_BOP_EMIT && in[i].a != UTRACE_BREC_PRINTF &&
		     in[i].a != UTRACE_BREC_PRINT && in[i].a != UTRACE_BREC_TIME &&
		     in[i].a != UTRACE_BREC_JOIN))
			return false;
	return true;
}

/* Each uprobe site's inproc_no; the number that run at the hit. */
static unsigned choose(struct bt_run *r)
{
	const char *all_no = r->kuprobes		     ? r->kuprobes
			     : getenv("UTRACE_BT_REPLAY") ? "UTRACE_BT_REPLAY is set"
							  : NULL;
	unsigned n = 0;

	for (unsigned i = 0; i < r->nsites; i++) {
		struct bt_site *s = &r->sites[i];

		if (s->type == BT_P_INTERVAL)
			all_no = "an interval probe may print the maps while they fill";
		if (is_uprobe(s) && !(s->inproc_no = bt_inproc_refusal(&s->code)))
			n++;
	}
	for (unsigned i = 0; i < r->nsites && n && !all_no; i++)
		if (is_uprobe(&r->sites[i]) && r->sites[i].inproc_no &&
		    !replay_leaves_maps(&r->sites[i].code))
			all_no = "another probe reads or orders about the maps while they fill";
	for (unsigned i = 0; i < r->nsites && all_no; i++)
		if (is_uprobe(&r->sites[i]) && !r->sites[i].inproc_no)
			r->sites[i].inproc_no = all_no;
	return all_no ? 0 : n;
}

/* One memfd of every map's table, empty. */
static int tables_new(struct bt_run *r, const struct utrace_bt_hdr *h)
{
	size_t max_keys = bt_maps_max_keys(r->maps);
	uint64_t off = 0;

	r->tables_size = 0;
	for (uint32_t i = 0; i < h->nr_maps; i++) {
		const struct utrace_bt_mapdesc *d = &utrace_bt_maps(h)[i];

		r->tables_size += bt_inproc_table_bytes(d, bt_inproc_table_bits(d, max_keys));
	}
	if (!r->tables_size) /* a program without maps: a page, as a mapping needs one */
		r->tables_size = 4096;
	r->tables_fd = memfd_create("utrace-bt", MFD_CLOEXEC);
	if (r->tables_fd < 0 || ftruncate(r->tables_fd, (off_t)r->tables_size) < 0)
		return utrace_error_set(r->err, -errno, "bt tables: %s", strerror(errno));
	r->tables = mmap(NULL, r->tables_size, PROT_READ | PROT_WRITE, MAP_SHARED, r->tables_fd, 0);
	if (r->tables == MAP_FAILED) {
		r->tables = NULL;
		return utrace_error_set(r->err, -errno, "bt tables: %s", strerror(errno));
	}
	for (uint32_t i = 0; i < h->nr_maps; i++) {
		const struct utrace_bt_mapdesc *d = &utrace_bt_maps(h)[i];
		uint32_t bits = bt_inproc_table_bits(d, max_keys);

		bt_inproc_table_init((struct utrace_hist_map *)(r->tables + off), d, bits);
		off += bt_inproc_table_bytes(d, bits);
	}
	return 0;
}

/* Whether site s is replayed but reads at addresses computed at run
 * time: its program is sent as a capture program (UTRACE_BT_MSG_CAPTURE),
 * which reads them at the hit into its record. */
static bool captures(const struct bt_site *s)
{
	return is_uprobe(s) && s->inproc_no && s->code.hit_reads;
}

int bt_inproc_setup(struct bt_run *r, struct utrace_recorder_opts *o)
{
	unsigned n = choose(r), ncap = 0;
	int ret;

	r->tables_fd = -1;
	for (unsigned i = 0; i < r->nsites; i++)
		ncap += captures(&r->sites[i]);
	if (!n && !ncap)
		return 0;
	if (n && (ret = tables_new(r, r->sites[0].code.prog)) < 0)
		return ret;
	r->inproc = calloc(n + ncap, sizeof(*r->inproc));
	if (!r->inproc)
		return utrace_error_set(r->err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < r->nsites; i++) {
		const struct bt_site *s = &r->sites[i];
		bool cap = captures(s);
		char ev[16];

		if (!is_uprobe(s) || (s->inproc_no && !cap))
			continue;
		snprintf(ev, sizeof(ev), "p%u", i);
		r->inproc[r->ninproc] = (struct utrace_rec_bt){
		    .group = "bt", .event = strdup(ev), .prog = s->code.prog,
		    .prog_len = s->code.len, .fd = cap ? -1 : r->tables_fd,
		    .tables_size = cap ? 0 : r->tables_size, .flags = cap ? UTRACE_BT_MSG_CAPTURE : 0};
		if (!r->inproc[r->ninproc++].event)
			return utrace_error_set(r->err, -ENOMEM, "out of memory");
	}
	o->bt = r->inproc;
	o->nr_bt = r->ninproc;
	return 0;
}

int bt_inproc_collect(struct bt_run *r)
{
	const struct utrace_bt_hdr *h;
	uint64_t off = 0;

	if (!r->tables)
		return 0;
	h = r->sites[0].code.prog;
	for (uint32_t i = 0; i < h->nr_maps; i++) {
		const struct utrace_bt_mapdesc *d = &utrace_bt_maps(h)[i];
		struct utrace_hist_map *m = (struct utrace_hist_map *)(r->tables + off);

		if (bt_inproc_table_read(r->maps, i, d, m) < 0)
			return utrace_error_set(r->err, -EINVAL, "bt tables: map %u is damaged", i);
		off += bt_inproc_table_bytes(d, m->bits);
	}
	return 0;
}

void bt_inproc_free(struct bt_run *r)
{
	for (unsigned i = 0; i < r->ninproc; i++)
		free((char *)r->inproc[i].event);
	free(r->inproc);
	r->inproc = NULL;
	r->ninproc = 0;
	if (r->tables)
		munmap(r->tables, r->tables_size);
	r->tables = NULL;
	if (r->tables_fd >= 0)
		close(r->tables_fd);
	r->tables_fd = -1;
}
