/* SPDX-License-Identifier: MIT */
/*
 * export_perfetto_tracks.c - the Perfetto trace's tracks: a track
 * descriptor for each process and each thread (with its process as its
 * parent and their names), small uuids so that an event's track_uuid
 * takes a byte or two, and each buffer's track, found by index.
 */
#include <errno.h>
#include <stdlib.h>

#include "lib/base/grow.h"
#include "lib/export/export_perfetto_internal.h"

/* A thread's track, by binary search; 0 if it has none. */
uint64_t pf_thread_uuid(const struct utrace_perfetto *p, int32_t pid, int32_t tid)
{
	size_t lo = 0, hi = p->nr_tracks;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct track *t = &p->tracks[mid];

		if (t->pid == pid && t->tid == tid)
			return t->uuid;
		if (t->pid < pid || (t->pid == pid && t->tid < tid))
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

/* Small uuids, so that an event's track_uuid takes a byte or two. */
static int add_track(struct tasks_arg *a, int32_t pid, int32_t tid, uint64_t *uuid)
{
	struct utrace_perfetto *p = a->p;

	if (UTRACE_GROW(p->tracks, p->cap_tracks, p->nr_tracks + 1) < 0)
		return utrace_error_set(a->err, -ENOMEM, "out of memory");
	*uuid = p->next_uuid++;
	p->tracks[p->nr_tracks++] = (struct track){pid, tid, *uuid};
	return 0;
}

/* A track descriptor per process and per thread, with their names. */
int pf_task_track(void *arg, enum utrace_export_task kind, int32_t pid, int32_t tid,
		  const char *name)
{
	struct tasks_arg *a = arg;
	struct utrace_pb *b = &a->p->pb;
	uint64_t uuid = 0;
	int ret;

	if (kind != a->kind)
		return 0;
	/* the process tracks get the uuids from 1 in pid order, then the
	 * threads: a thread's process is found by counting */
	if (kind == UTRACE_EXPORT_PROCESS)
		uuid = a->p->next_uuid++;
	else {
		if ((ret = add_track(a, pid, tid, &uuid)) < 0)
			return ret;
		if (pid != a->process_pid || !a->process) {
			a->process++;
			a->process_pid = pid;
		}
	}
	pf_packet_begin(a->p);
	utrace_pb_begin(b, PKT_TRACK_DESCRIPTOR);
	if (kind == UTRACE_EXPORT_PROCESS) {
		utrace_pb_uint(b, TD_UUID, uuid);
		utrace_pb_begin(b, TD_PROCESS);
		utrace_pb_int(b, PD_PID, pid);
		utrace_pb_str(b, PD_NAME, name);
		utrace_pb_end(b);
	} else {
		utrace_pb_uint(b, TD_UUID, uuid);
		utrace_pb_uint(b, TD_PARENT, a->process);
		utrace_pb_begin(b, TD_THREAD);
		utrace_pb_int(b, THD_PID, pid);
		utrace_pb_int(b, THD_TID, tid);
		utrace_pb_str(b, THD_NAME, name);
		utrace_pb_end(b);
	}
	utrace_pb_end(b);
	return pf_packet_end(a->p, a->err);
}

/* Each buffer's track, so an event finds it by index. */
int pf_map_buffers(struct utrace_perfetto *p, struct utrace_error *err)
{
	p->nr_bufs = utrace_dat_buffer_count(p->d);
	p->buf_uuid = calloc(p->nr_bufs + 1, sizeof(*p->buf_uuid));
	if (!p->buf_uuid)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	for (unsigned i = 0; i < p->nr_bufs; i++) {
		const struct utrace_dat_buffer_info *bi = utrace_dat_buffer_get(p->d, i);

		p->buf_uuid[i] = pf_thread_uuid(p, bi->pid, bi->tid);
	}
	return 0;
}
