/* SPDX-License-Identifier: MIT */
/*
 * export_perfetto_seq.c - the Perfetto trace's one packet sequence:
 * packets built in the protobuf writer and copied into the 1 MiB output
 * buffer, written out when full; and the names of functions and events
 * interned on the sequence (its incremental state), each the first time an
 * event uses it, in that event's own packet.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/export/export_perfetto_internal.h"

/* ---- packets ---- */

void pf_packet_begin(struct utrace_perfetto *p)
{
	utrace_pb_reset(&p->pb);
	utrace_pb_begin(&p->pb, TRACE_PACKET);
	utrace_pb_uint(&p->pb, PKT_SEQ_ID, SEQ_ID);
}

int pf_flush_out(struct utrace_perfetto *p, struct utrace_error *err)
{
	if (p->olen && fwrite_unlocked(p->obuf, 1, p->olen, p->out) != p->olen) {
		p->failed = true;
		return utrace_error_set(err, -EIO, "%s: writing the Perfetto trace failed",
					utrace_dat_path(p->d));
	}
	p->olen = 0;
	return 0;
}

/* Room for n more bytes in the output buffer. */
int pf_out_room(struct utrace_perfetto *p, size_t n, struct utrace_error *err)
{
	return OBUF_SIZE - p->olen >= n ? 0 : pf_flush_out(p, err);
}

int pf_packet_end(struct utrace_perfetto *p, struct utrace_error *err)
{
	int ret;

	utrace_pb_end(&p->pb);
	if (p->pb.oom) {
		p->failed = true;
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	if (p->pb.len > OBUF_SIZE) {
		ret = pf_flush_out(p, err);
		if (ret == 0 && fwrite_unlocked(p->pb.p, 1, p->pb.len, p->out) != p->pb.len)
			ret = pf_flush_out(p, err); /* olen is 0: only says what failed */
		return ret;
	}
	if ((ret = pf_out_room(p, p->pb.len, err)) < 0)
		return ret;
	memcpy(p->obuf + p->olen, p->pb.p, p->pb.len);
	p->olen += p->pb.len;
	return 0;
}


/* ---- interned names ---- */

static size_t intern_slot(const struct intern *t, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ull;

	return (size_t)(h >> 20) & (t->cap - 1);
}

/* The iid of key, 0 if new (then *slot is where it goes). */
uint64_t pf_intern_find(const struct intern *t, uint64_t key, size_t *slot)
{
	size_t s = intern_slot(t, key);

	while (t->keys[2 * s]) {
		if (t->keys[2 * s] == key)
			return t->keys[2 * s + 1];
		s = (s + 1) & (t->cap - 1);
	}
	*slot = s;
	return 0;
}

static int intern_grow(struct intern *t)
{
	struct intern n = {.cap = t->cap ? t->cap * 2 : 1024};

	n.keys = calloc(2 * n.cap, sizeof(*n.keys));
	if (!n.keys)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		size_t s = 0;

		if (t->keys[2 * i] && !pf_intern_find(&n, t->keys[2 * i], &s)) {
			n.keys[2 * s] = t->keys[2 * i];
			n.keys[2 * s + 1] = t->keys[2 * i + 1];
		}
	}
	n.n = t->n;
	free(t->keys);
	*t = n;
	return 0;
}

/* The name of a function or an event, for its key. */
static void key_name(struct utrace_perfetto *p, uint64_t key, char *buf, size_t len,
		     const char **name, size_t *name_len)
{
	if (key >> 62 == 1) {
		*name =
		    utrace_dat_func_name(p->d, (uint32_t)(key >> 32 & 0x3fffffff), (uint32_t)key);
		*name_len = strlen(*name);
		return;
	} else {
		const char *system = NULL;
		const char *fmt = utrace_dat_event_format_by_id(p->d, (int)(uint32_t)key, &system);
		const char *n = fmt ? strstr(fmt, "name: ") : NULL;
		int w;

		if (n)
			w = snprintf(buf, len, "%s%s%.*s", system ? system : "", system ? ":" : "",
				     (int)strcspn(n + 6, "\n"), n + 6);
		else
			w = snprintf(buf, len, "event %u", (uint32_t)key);
		*name = buf;
		*name_len = w < 0 ? 0 : (size_t)w < len ? (size_t)w : len - 1;
	}
}

/* The iid of key; a new one is interned into the packet being built. */
uint64_t pf_intern(struct utrace_perfetto *p, uint64_t key)
{
	struct intern *t = &p->names;
	const char *name;
	size_t slot = 0, name_len;
	uint64_t iid;
	char buf[256];

	if ((t->n + 1) * 2 > t->cap && intern_grow(t) < 0) {
		p->pb.oom = true;
		return 0;
	}
	iid = pf_intern_find(t, key, &slot);
	if (iid)
		return iid;
	iid = p->next_iid++;
	t->keys[2 * slot] = key;
	t->keys[2 * slot + 1] = iid;
	t->n++;
	key_name(p, key, buf, sizeof(buf), &name, &name_len);
	utrace_pb_begin(&p->pb, PKT_INTERNED);
	utrace_pb_begin(&p->pb, ID_EVENT_NAMES);
	utrace_pb_uint(&p->pb, EN_IID, iid);
	utrace_pb_bytes(&p->pb, EN_NAME, name, name_len);
	utrace_pb_end(&p->pb);
	utrace_pb_end(&p->pb);
	return iid;
}
