/* SPDX-License-Identifier: MIT */
/*
 * test_perfetto.c - `utrace dump --perfetto` (lib/export/export_perfetto.c)
 * on synthetic utrace.dat files, read back with a protobuf wire decoder
 * of the test's own: every packet parses to its end, the track
 * descriptors name the processes and threads, every name_iid resolves
 * through the interned names (each name interned once), slices balance on
 * every track, and the decoded events are exactly those expected.  When
 * protoc is installed, `protoc --decode_raw` must parse the file too.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/export/export_perfetto.h"
#include "lib/report/report_filter.h"
#include "lib/tracefile/dat_reader.h"
#include "tests/unit/trace_fixture.h"

/* ---- a protobuf wire decoder ---- */

struct rd {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;

	for (int shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		v |= (uint64_t)(*r->p & 0x7f) << shift;
		if (!(*r->p++ & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

/* The next field: its number, and its value (varint) or body (LEN). */
static bool rd_field(struct rd *r, unsigned *field, uint64_t *v, struct rd *body)
{
	uint64_t tag, len;

	if (r->bad || r->p >= r->end)
		return false;
	tag = rd_varint(r);
	*field = (unsigned)(tag >> 3);
	switch (tag & 7) {
	case 0:
		*v = rd_varint(r);
		break;
	case 2:
		len = rd_varint(r);
		if (r->bad || len > (uint64_t)(r->end - r->p)) {
			r->bad = true;
			return false;
		}
		*body = (struct rd){r->p, r->p + len, false};
		r->p += len;
		break;
	default: /* the writer uses no other wire type */
		r->bad = true;
		return false;
	}
	return !r->bad;
}

#define MAX_NAMES 64
#define MAX_TRACKS 16

struct decoded {
	char *text; /* one line per packet that says something */
	size_t len;
	FILE *out;
	char *names[MAX_NAMES]; /* by iid */
	unsigned interned_twice, unresolved, bad_packets, unknown_tracks, unbalanced;
	uint64_t tracks[MAX_TRACKS];
	char label[MAX_TRACKS][32]; /* "pid/tid" of a thread track */
	int open[MAX_TRACKS];	    /* slices open on each track */
	unsigned nr_tracks, packets;
};

static int track_index(struct decoded *d, uint64_t uuid)
{
	for (unsigned i = 0; i < d->nr_tracks; i++)
		if (d->tracks[i] == uuid)
			return (int)i;
	return -1;
}

static void decode_descriptor(struct decoded *d, struct rd r)
{
	struct rd sub, task;
	uint64_t v, uuid = 0, parent = 0, pid = 0, tid = 0;
	char name[64] = "";
	unsigned f, g;
	bool thread = false;

	while (rd_field(&r, &f, &v, &sub)) {
		if (f == 1)
			uuid = v;
		else if (f == 5)
			parent = v;
		else if (f == 3 || f == 4) {
			thread = f == 4;
			task = sub;
			while (rd_field(&task, &g, &v, &sub)) {
				if (g == 1)
					pid = v;
				else if (g == 2 && thread)
					tid = v;
				else if ((g == 6 && !thread) || (g == 5 && thread))
					snprintf(name, sizeof(name), "%.*s", (int)(sub.end - sub.p),
						 sub.p);
			}
		}
	}
	if (d->nr_tracks < MAX_TRACKS) {
		snprintf(d->label[d->nr_tracks], sizeof(d->label[0]), "%d/%d", (int)pid, (int)tid);
		d->tracks[d->nr_tracks++] = uuid;
	}
	if (thread)
		fprintf(d->out, "thread %d/%d \"%s\"%s\n", (int)pid, (int)tid, name,
			track_index(d, parent) < 0 ? " (no process track)" : "");
	else
		fprintf(d->out, "process %d \"%s\"\n", (int)pid, name);
}

static void decode_interned(struct decoded *d, struct rd r)
{
	struct rd sub, en;
	uint64_t v, iid = 0;
	unsigned f, g;

	while (rd_field(&r, &f, &v, &sub)) {
		if (f != 2)
			continue;
		en = sub;
		char *name = NULL;

		while (rd_field(&en, &g, &v, &sub)) {
			if (g == 1)
				iid = v;
			else if (g == 2)
				name = strndup((const char *)sub.p, (size_t)(sub.end - sub.p));
		}
		if (iid >= MAX_NAMES || d->names[iid]) {
			d->interned_twice++;
			free(name);
		} else {
			d->names[iid] = name;
		}
	}
}

static void decode_event(struct decoded *d, uint64_t ts, struct rd r)
{
	static const char *const types[] = {"?", "B", "E", "I"};
	struct rd sub;
	uint64_t v, type = 0, track = 0, iid = 0;
	char name[128] = "";
	unsigned f;
	int t;

	while (rd_field(&r, &f, &v, &sub)) {
		if (f == 9)
			type = v;
		else if (f == 11)
			track = v;
		else if (f == 10)
			iid = v;
		else if (f == 23)
			snprintf(name, sizeof(name), "%.*s", (int)(sub.end - sub.p), sub.p);
	}
	if (iid) {
		if (iid < MAX_NAMES && d->names[iid])
			snprintf(name, sizeof(name), "%s", d->names[iid]);
		else
			d->unresolved++;
	}
	t = track_index(d, track);
	if (t < 0)
		d->unknown_tracks++;
	else if (type == 1)
		d->open[t]++;
	else if (type == 2 && --d->open[t] < 0)
		d->unbalanced++;
	fprintf(d->out, "%" PRIu64 " %s %s @%s\n", ts, type < 4 ? types[type] : "?", name,
		t < 0 ? "?" : d->label[t]);
}

static void decode_packet(struct decoded *d, struct rd r)
{
	struct rd sub, event = {0};
	uint64_t v, ts = 0, seq = 0;
	bool has_event = false;
	unsigned f;

	while (rd_field(&r, &f, &v, &sub)) {
		if (f == 8)
			ts = v;
		else if (f == 10)
			seq = v;
		else if (f == 12)
			decode_interned(d, sub);
		else if (f == 60)
			decode_descriptor(d, sub);
		else if (f == 11) {
			event = sub;
			has_event = true;
		}
	}
	if (r.bad || seq != 1)
		d->bad_packets++;
	if (has_event)
		decode_event(d, ts, event);
}

/* Decodes the Trace in buf[0..len). */
static void decode(struct decoded *d, const char *buf, size_t len)
{
	struct rd r = {(const unsigned char *)buf, (const unsigned char *)buf + len, false}, sub;
	uint64_t v;
	unsigned f;

	memset(d, 0, sizeof(*d));
	d->out = open_memstream(&d->text, &d->len);
	while (rd_field(&r, &f, &v, &sub)) {
		d->packets++;
		if (f == 1)
			decode_packet(d, sub);
		else
			d->bad_packets++;
	}
	if (r.bad)
		d->bad_packets++;
	for (unsigned i = 0; i < d->nr_tracks; i++)
		if (d->open[i])
			d->unbalanced++;
	fclose(d->out);
}

static void decoded_free(struct decoded *d)
{
	free(d->text);
	for (unsigned i = 0; i < MAX_NAMES; i++)
		free(d->names[i]);
}

/* ---- the export ---- */

static int perfetto_add(void *arg, const struct utrace_event *ev, struct utrace_error *err)
{
	return utrace_perfetto_event(arg, ev, err);
}

/* Exports dat (selection key=value if key) to out; 0 or -1. */
static int export(const char *dat, const char *out, const char *key, const char *value)
{
	struct utrace_report_filter *f = fx_filter(key, value);
	struct utrace_perfetto *p;
	struct utrace_pass_stats st;
	struct utrace_error err;
	struct utrace_dat *d;
	FILE *fp = fopen(out, "w");
	int ret = -1;

	if (fp && utrace_dat_open(dat, &d, &err) == 0) {
		ret = utrace_perfetto_begin(d, f, fp, &p, &err);
		if (ret == 0) {
			ret = utrace_report_filter_run(f, d, perfetto_add, p, &st, &err);
			if (utrace_perfetto_end(p, ret ? NULL : &err) < 0)
				ret = -1;
		}
		if (ret < 0)
			check(0, "export %s: %s", dat, err.msg);
		utrace_dat_close(d);
	}
	if (fp)
		fclose(fp);
	utrace_report_filter_free(f);
	return ret;
}

/* Exports and decodes; the structural checks; d->text for the golden. */
static bool export_decode(const char *what, const char *dat, const char *key, const char *value,
			  struct decoded *d)
{
	char out[512], cmd[1200];
	size_t len;
	char *buf;

	snprintf(out, sizeof(out), "%s.pftrace", dat);
	if (export(dat, out, key, value) < 0 || !(buf = check_slurp(out, &len)))
		return false;
	decode(d, buf, len);
	free(buf);
	check(d->packets > 1 && !d->bad_packets, "%s: %u packets, each parses on sequence 1", what,
	      d->packets);
	check(!d->interned_twice && !d->unresolved,
	      "%s: every name interned once, every name_iid resolves", what);
	check(!d->unknown_tracks && !d->unbalanced,
	      "%s: events on described tracks, slices balanced", what);
	if (check_have("protoc")) {
		snprintf(cmd, sizeof(cmd), "protoc --decode_raw <'%s' >/dev/null 2>&1", out);
		check(system(cmd) == 0, "%s: protoc --decode_raw parses the file", what);
	} else {
		check_skip(what, "protoc not installed");
	}
	return true;
}

static void test_graph(void)
{
	char path[512];
	struct decoded d;

	snprintf(path, sizeof(path), "%s", check_path("graph.dat"));
	fx_write_graph_basic(path);
	if (!export_decode("graph", path, NULL, NULL, &d))
		return;
	fx_golden("graph: tracks, then calls as slices (a leaf as B and E)", d.text,
		  "process 100 \"utrace-test\"\n"
		  "thread 100/100 \"test\"\n"
		  "1000 B main @100/100\n"
		  "1010 B foo @100/100\n"
		  "1015 E  @100/100\n"
		  "1020 B bar @100/100\n"
		  "1021 B 0x1400 @100/100\n"
		  "16778257 E  @100/100\n"
		  "16778260 B foo @100/100\n"
		  "16778360 E  @100/100\n"
		  "16778367 E  @100/100\n"
		  "2016778367 E  @100/100\n");
	decoded_free(&d);
}

/* Two threads, lost events, a thresh return (a call shown at its exit),
 * a function selection that hides main's entry. */
static void test_threads_lost(void)
{
	char path[512];
	struct utrace_dat_writer *w;
	struct fx_page p1 = {3000, 0, 0, 0, 0, 0}, p2 = {4000, 0, 0, 1, 0, 0};
	struct wl l1 = {.n = 0}, l2 = {.n = 0};
	struct decoded d;

	snprintf(path, sizeof(path), "%s", check_path("lost.dat"));
	w = fx_begin(path, "function_graph");
	fx_buffer(w, 1, 100, "test");
	fx_buffer(w, 2, 101, "worker");
	wl_entry(&l1, 1, 0); /* foo @3000 */
	wl_ext(&l1, UEXT_LOST, 0);
	wl_u64(&l1, 3);
	wl_exit(&l1, 10); /* @3010 */
	fx_page(w, 1, &p1, &l1);
	wl_leaf(&l2, 50, 2, 0, 40); /* bar ended @4050 after 40 */
	fx_page(w, 2, &p2, &l2);
	fx_end(w);
	if (!export_decode("threads", path, NULL, NULL, &d))
		return;
	fx_golden("threads: a track per thread under its process, lost events as an instant",
		  d.text,
		  "process 100 \"utrace-test\"\n"
		  "thread 100/100 \"test\"\n"
		  "thread 100/101 \"worker\"\n"
		  "3000 B foo @100/100\n"
		  "3000 I LOST 3 EVENTS @100/100\n"
		  "3010 E  @100/100\n"
		  "4010 B bar @100/101\n"
		  "4050 E  @100/101\n");
	decoded_free(&d);
}

/* A selection (-F bar) that leaves out the outer call: nothing unbalanced. */
static void test_selection(void)
{
	char path[512];
	struct decoded d;

	snprintf(path, sizeof(path), "%s", check_path("sel.dat"));
	fx_write_graph_basic(path);
	if (!export_decode("selection", path, "filter", "bar", &d))
		return;
	check(strstr(d.text, "B bar @100/100") && !strstr(d.text, "B main"),
	      "selection: bar shown, main left out");
	decoded_free(&d);
}

int main(void)
{
	check_begin("perfetto");
	test_graph();
	test_threads_lost();
	test_selection();
	return check_end();
}
