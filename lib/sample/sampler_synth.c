/* SPDX-License-Identifier: MIT */
/*
 * sampler_synth.c - the records the kernel writes at a command's exec,
 * made from /proc for a process that already runs (record -P -F).
 *
 * The samples name their functions through the PERF_RECORD_MMAP records
 * (which file is mapped where) and their threads through PERF_RECORD_COMM;
 * the kernel writes those as the program maps a file or execs, so a
 * process sampled from the middle of its life has none for what it did
 * before.  Here they are made the way perf record -p makes them
 * (perf_event__synthesize_mmap_events, _comm): one COMM per thread from
 * /proc/PID/task/TID/comm, one MMAP per executable mapping of a file from
 * /proc/PID/maps, laid out as the kernel lays them out (sample_id_all off:
 * no trailer), to be saved before the first sample.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sample/sampler.h"

struct synth {
	FILE *out;
	pid_t pid;
};

/* header, fixed part, then text NUL-padded to 8 bytes, as the kernel */
static void put_record(struct synth *s, uint32_t type, uint16_t misc, const void *fixed,
		       size_t nfixed, const char *text)
{
	size_t ntext = (strlen(text) + 1 + 7) & ~(size_t)7;
	struct perf_event_header h = {type, misc, (uint16_t)(sizeof(h) + nfixed + ntext)};
	static const char zeros[8];
	size_t len = strlen(text);

	fwrite(&h, sizeof(h), 1, s->out);
	fwrite(fixed, nfixed, 1, s->out);
	fwrite(text, len, 1, s->out);
	fwrite(zeros, ntext - len, 1, s->out);
}

static void synth_comms(struct synth *s)
{
	char path[64], comm[32];
	struct dirent *e;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", s->pid);
	if (!(dir = opendir(path)))
		return;
	while ((e = readdir(dir))) {
		uint32_t ids[2] = {(uint32_t)s->pid, (uint32_t)strtoul(e->d_name, NULL, 10)};
		FILE *f;

		if (!ids[1])
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%u/comm", s->pid, ids[1]);
		if (!(f = fopen(path, "re")))
			continue;
		if (fgets(comm, sizeof(comm), f)) {
			comm[strcspn(comm, "\n")] = '\0';
			put_record(s, PERF_RECORD_COMM, 0, ids, sizeof(ids), comm);
		}
		fclose(f);
	}
	closedir(dir);
}

/* One line of /proc/PID/maps: an MMAP record if it maps a file (or the
 * vDSO) executable. */
static void synth_map(struct synth *s, const char *line)
{
	struct {
		uint32_t pid, tid;
		uint64_t addr, len, pgoff;
	} m = {(uint32_t)s->pid, (uint32_t)s->pid, 0, 0, 0};
	uint64_t start, end;
	char perms[8];
	int name = 0;

	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*u %n", &start, &end, perms,
		   &m.pgoff, &name) < 4 ||
	    !name || perms[2] != 'x')
		return;
	line += name;
	if (line[0] != '/' && strncmp(line, "[vdso]", 6))
		return;
	m.addr = start;
	m.len = end - start;
	put_record(s, PERF_RECORD_MMAP, PERF_RECORD_MISC_USER, &m, sizeof(m), line);
}

static void synth_maps(struct synth *s)
{
	char path[64], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", s->pid);
	if (!(f = fopen(path, "re")))
		return;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		synth_map(s, line);
	}
	free(line);
	fclose(f);
}

int utrace_sampler_synthesize(pid_t pid, void **out, size_t *len, struct utrace_error *err)
{
	struct synth s = {NULL, pid};
	char *buf = NULL;
	size_t n = 0;

	*out = NULL;
	*len = 0;
	if (!(s.out = open_memstream(&buf, &n)))
		return utrace_error_set(err, -ENOMEM, "out of memory");
	synth_comms(&s);
	synth_maps(&s);
	if (fclose(s.out) != 0) {
		free(buf);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	*out = buf;
	*len = n;
	return 0;
}
