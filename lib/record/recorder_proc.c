/* SPDX-License-Identifier: MIT */
/*
 * recorder_proc.c - a traced process whose connection closed while it
 * still runs.
 *
 * A connection ends when its process exits or execs (the kernel drops the
 * address space first, then the descriptors), and then its buffers are
 * drained to the end.  But a program may also close the socket itself, by
 * a system call the runtime's guard does not see (fd_guard.c): the
 * process goes on, and its threads go on writing into buffers we still
 * have mapped.  Draining them to the end then would lose everything it
 * does afterwards, and say nothing.  So on end of file:
 *
 *   - the process still maps one of the connection's buffers (its memfd's
 *     inode in /proc/PID/maps; with no buffer yet, the control page, if
 *     no newer image of that pid connected): the image lives on;
 *   - then its buffers stay open and are drained as before; a pidfd says
 *     when the process exits, and only then are they drained to the end
 *     (without one, at the end of the recording);
 *   - the user is told, the file gets a NOTICE, the summary counts it.
 *
 * utrace_recorder_traced_pids() says which processes are still traced,
 * and utrace_recorder_mapping_pids() which map the control page (a forked
 * child does from its first instruction, before it connects), for a
 * caller that ends the recording without some of them (daemons).
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "lib/record/recorder_internal.h"
#include "lib/record/recorder_snap.h"

#define ORPHAN_TEXT                                                                                \
	"closed utrace's connection; threads and libraries it starts from now on are not traced"

int rec_conn_drain(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err)
{
	/* a snapshot it asked for just before it ended needs its buffers */
	int ret = rec_snap_poll(r, err);

	for (uint32_t i = 0; i < r->nr_bufs; i++)
		if (r->bufs[i]->conn == c && rec_drain(r, r->bufs[i], true, err) < 0 && !ret)
			ret = err->code;
	return ret;
}

/* Is the (dev, ino) of one of c's open buffers, or of the control page
 * (ctl), mapped in that line of /proc/PID/maps? */
static bool maps_line_ours(struct utrace_recorder *r, struct rec_conn *c, const char *line,
			   const struct stat *ctl)
{
	unsigned maj, min;
	unsigned long ino;

	if (sscanf(line, "%*x-%*x %*s %*x %x:%x %lu", &maj, &min, &ino) != 3 || !ino)
		return false;
	if (ctl)
		return ino == ctl->st_ino && makedev(maj, min) == ctl->st_dev;
	for (uint32_t i = 0; i < r->nr_bufs; i++) {
		const struct rec_buffer *b = r->bufs[i];

		if (b->conn == c && !b->done && ino == b->ino && makedev(maj, min) == b->dev)
			return true;
	}
	return false;
}

static bool maps_have(struct utrace_recorder *r, struct rec_conn *c, int pid,
		      const struct stat *ctl)
{
	char path[64], line[512];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = maps_line_ours(r, c, line, ctl);
	fclose(f);
	return found;
}

/* A later image of the same pid has connected: this one exec'd. */
static bool pid_reconnected(const struct utrace_recorder *r, const struct rec_conn *c)
{
	for (uint32_t i = 0; i < r->nr_conns; i++)
		if (r->conns[i]->image > c->image && r->conns[i]->pid == c->pid)
			return true;
	return false;
}

bool rec_image_alive(struct utrace_recorder *r, struct rec_conn *c)
{
	struct stat ctl;
	bool bufs = false;

	if (c->pid <= 0)
		return false;
	for (uint32_t i = 0; i < r->nr_bufs && !bufs; i++)
		bufs = r->bufs[i]->conn == c && !r->bufs[i]->done;
	if (bufs)
		return maps_have(r, c, c->pid, NULL);
	return !pid_reconnected(r, c) && !fstat(r->ctl_fd, &ctl) && maps_have(r, c, c->pid, &ctl);
}

int rec_conn_orphan(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err)
{
	char line[320];
	int len;

	c->pidfd = (int)syscall(SYS_pidfd_open, c->pid, 0);
	r->nr_orphans++;
	if (r->o.notice)
		r->o.notice(r->o.notice_arg, c->pid, ORPHAN_TEXT);
	len = snprintf(line, sizeof(line), "%d %d %s", c->pid, c->pid, ORPHAN_TEXT);
	return rec_write(r, UTRACE_DAT_NOTICE, line, (size_t)len, NULL, 0, err);
}

int rec_conn_exited(struct utrace_recorder *r, struct rec_conn *c, struct utrace_error *err)
{
	close(c->pidfd);
	c->pidfd = -1;
	return rec_conn_drain(r, c, err);
}

uint32_t utrace_recorder_traced_pids(const struct utrace_recorder *r, int *pids, uint32_t max)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < r->nr_conns; i++) {
		const struct rec_conn *c = r->conns[i];

		if (!c->open && c->pidfd < 0)
			continue;
		if (n < max)
			pids[n] = c->pid > 0 ? c->pid : 0;
		n++;
	}
	return n;
}

uint32_t utrace_recorder_mapping_pids(struct utrace_recorder *r, int *pids, uint32_t max)
{
	struct stat ctl;
	struct dirent *d;
	uint32_t n = 0;
	DIR *dir;

	if (fstat(r->ctl_fd, &ctl) < 0 || !(dir = opendir("/proc")))
		return 0;
	while ((d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid() || !maps_have(r, NULL, (int)pid, &ctl))
			continue;
		if (n < max)
			pids[n] = (int)pid;
		n++;
	}
	closedir(dir);
	return n;
}
