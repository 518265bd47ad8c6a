/* SPDX-License-Identifier: MIT */
/*
 * live_fs.c - the FUSE side of the live tracefs: the mount, the thread
 * that serves it, and the operations, which hand each file to its
 * callbacks in live_files.c under l->lock.
 *
 * tracefs files report size 0 and are read by whatever read() returns, so
 * every file is opened direct_io (the page cache would believe the size):
 * a read gets what the file's show() made at open, from the offset asked.
 * `echo x > f` must reach the file as the kernel sees it - an open with
 * O_TRUNC, then the write - so FUSE_CAP_ATOMIC_O_TRUNC is asked for:
 * without it the kernel sends a truncate first and an open without the
 * flag.  A function list is applied at flush (close() waits for it), not
 * at release, which the kernel sends after close() has returned: the
 * next command of a script must find the change made (one emptied by its
 * open and never written: at the release, see live_files.c flush_list).
 *
 * The mount is the user's own (no allow_other): FUSE lets no other user
 * in.  utrace_live_stop unmounts; a recorder killed with SIGKILL leaves a
 * dead mount ("Transport endpoint is not connected") that
 * utrace_live_reset finds by its type, fuse.utrace, and detaches.
 */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/tracefs/live_internal.h"

static struct utrace_live *live_of(void)
{
	return fuse_get_context()->private_data;
}

/* Only to interrupt the sleep of a trace_pipe read: no SA_RESTART. */
static void live_intr(int sig)
{
	(void)sig;
}

static void *live_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
		conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
	cfg->direct_io = 1;
	/* a read of trace_pipe blocked when its reader is killed: the
	 * library signals the thread (intr_signal, live_intr) and
	 * fuse_interrupted() says so */
	cfg->intr = 1;
	cfg->intr_signal = SIGUSR1;
	cfg->attr_timeout = 0;
	cfg->entry_timeout = 0;
	return fuse_get_context()->private_data;
}

static int live_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	struct utrace_live *l = live_of();
	struct live_handle h;
	int ret;

	memset(st, 0, sizeof(*st));
	pthread_mutex_lock(&l->lock);
	ret = live_resolve(l, path, &h);
	pthread_mutex_unlock(&l->lock);
	if (ret < 0)
		return -ENOENT;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_mode =
	    h.f ? S_IFREG | h.f->mode : S_IFDIR | (h.dir == LIVE_DIR_INSTANCES ? 0750 : 0755);
	st->st_nlink = h.f ? 1 : 2;
	return 0;
}

struct dir_fill {
	void *buf;
	fuse_fill_dir_t fill;
};

static void dir_add(void *arg, const char *name)
{
	struct dir_fill *d = arg;

	d->fill(d->buf, name, NULL, 0, 0);
}

static int live_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
			struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	struct utrace_live *l = live_of();
	struct dir_fill d = {buf, fill};
	int ret;

	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	pthread_mutex_lock(&l->lock);
	ret = live_dir_names(l, path, dir_add, &d);
	pthread_mutex_unlock(&l->lock);
	return ret;
}

/* h is open (l->lock held). */
static void handle_link(struct utrace_live *l, struct live_handle *h)
{
	h->prev = NULL;
	h->next = l->open;
	if (l->open)
		l->open->prev = h;
	l->open = h;
}

static void handle_unlink(struct utrace_live *l, struct live_handle *h)
{
	if (h->prev)
		h->prev->next = h->next;
	else
		l->open = h->next;
	if (h->next)
		h->next->prev = h->prev;
}

static void handle_free(struct live_handle *h)
{
	free(h->buf);
	live_list_free(&h->pending);
	free(h);
}

/* The content a read of h sees, made now as the kernel's seq files do. */
static int handle_fill(struct utrace_live *l, struct live_handle *h)
{
	FILE *out = open_memstream(&h->buf, &h->len);
	int ret;

	if (!out)
		return -ENOMEM;
	ret = h->f->show(l, h, out);
	fclose(out);
	return ret < 0 ? ret : 0;
}

/* The file path names, opened (l->lock held: an instance stays while
 * its files are open). */
static int open_locked(struct utrace_live *l, const char *path, struct live_handle *h, int flags)
{
	int acc = flags & O_ACCMODE, ret = 0;
	const struct live_file *f;

	if (live_resolve(l, path, h) < 0)
		return -ENOENT;
	if (!(f = h->f))
		return -EISDIR;
	if ((acc != O_RDONLY && !(f->mode & 0200)) || (acc != O_WRONLY && !(f->mode & 0400)))
		return -EACCES;
	if (f->open)
		ret = f->open(h->l, h, flags);
	if (ret >= 0 && acc != O_WRONLY && !f->pipe)
		ret = handle_fill(h->l, h);
	if (ret < 0)
		return ret;
	/* a reader: utrace_live_drain waits for it */
	h->l->pipe_used |= f->pipe;
	handle_link(l, h);
	h->l->nopen++;
	return 0;
}

static int live_open(const char *path, struct fuse_file_info *fi)
{
	struct utrace_live *l = live_of();
	struct live_handle *h;
	int ret;

	if (!(h = calloc(1, sizeof(*h))))
		return -ENOMEM;
	pthread_mutex_lock(&l->lock);
	ret = open_locked(l, path, h, fi->flags);
	pthread_mutex_unlock(&l->lock);
	if (ret < 0) {
		handle_free(h);
		return ret;
	}
	fi->fh = (uint64_t)(uintptr_t)h;
	fi->direct_io = 1;
	fi->nonseekable = 0;
	return 0;
}

static int live_read(const char *path, char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	struct live_handle *h = (void *)(uintptr_t)fi->fh;
	struct utrace_live *l;
	long n;

	if (h->f->pipe) {
		l = live_of();
		pthread_mutex_lock(&l->lock);
		n = live_pipe_read(h->l, h->cpu, buf, size, fi->flags & O_NONBLOCK);
		pthread_mutex_unlock(&l->lock);
		return (int)n;
	}
	if (off < 0 || (size_t)off >= h->len)
		return 0;
	if (size > h->len - (size_t)off)
		size = h->len - (size_t)off;
	memcpy(buf, h->buf + off, size);
	return (int)size;
}

static int live_write(const char *path, const char *buf, size_t size, off_t off,
		      struct fuse_file_info *fi)
{
	struct utrace_live *l = live_of();
	struct live_handle *h = (void *)(uintptr_t)fi->fh;
	long ret;

	if (!h->f->write)
		return -EACCES;
	pthread_mutex_lock(&l->lock);
	ret = h->f->write(h->l, h, buf, size);
	pthread_mutex_unlock(&l->lock);
	return (int)ret;
}

static int live_flush(const char *path, struct fuse_file_info *fi)
{
	struct utrace_live *l = live_of();
	struct live_handle *h = (void *)(uintptr_t)fi->fh;
	int ret = 0;

	if (h->f->flush) {
		pthread_mutex_lock(&l->lock);
		ret = h->f->flush(h->l, h);
		pthread_mutex_unlock(&l->lock);
	}
	return ret;
}

static int live_release(const char *path, struct fuse_file_info *fi)
{
	struct live_handle *h = (void *)(uintptr_t)fi->fh;
	struct utrace_live *l = live_of();

	pthread_mutex_lock(&l->lock);
	if (h->f && h->f->flush && h->dirty && !h->wrote) { /* emptied, never written */
		h->wrote = true;
		h->f->flush(h->l, h);
	}
	handle_unlink(l, h);
	h->l->nopen--;
	pthread_mutex_unlock(&l->lock);
	handle_free(h);
	return 0;
}

/* instances/NAME: a new instance (live_inst.c) */
static int live_mkdir(const char *path, mode_t mode)
{
	struct utrace_live *l = live_of();
	int ret;

	pthread_mutex_lock(&l->lock);
	ret = live_inst_mkdir(l, path);
	pthread_mutex_unlock(&l->lock);
	return ret;
}

static int live_rmdir(const char *path)
{
	struct utrace_live *l = live_of();
	int ret;

	pthread_mutex_lock(&l->lock);
	ret = live_inst_rmdir(l, path);
	pthread_mutex_unlock(&l->lock);
	return ret;
}

/* `>` without FUSE_CAP_ATOMIC_O_TRUNC, or truncate(1): nothing to cut. */
static int live_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	struct utrace_live *l = live_of();
	struct live_handle h;
	int ret;

	pthread_mutex_lock(&l->lock);
	ret = live_resolve(l, path, &h);
	pthread_mutex_unlock(&l->lock);
	return ret < 0 ? -ENOENT : h.f ? 0 : -EISDIR;
}

static const struct fuse_operations live_ops = {
    .init = live_init,
    .getattr = live_getattr,
    .readdir = live_readdir,
    .open = live_open,
    .read = live_read,
    .write = live_write,
    .flush = live_flush,
    .release = live_release,
    .truncate = live_truncate,
    .mkdir = live_mkdir,
    .rmdir = live_rmdir,
};

static void *live_serve(void *arg)
{
	struct utrace_live *l = arg;
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();

	if (cfg) {
		fuse_loop_cfg_set_clone_fd(cfg, 0);
		fuse_loop_cfg_set_max_threads(cfg, 8);
		fuse_loop_mt(l->fuse, cfg);
		fuse_loop_cfg_destroy(cfg);
	}
	return NULL;
}

int utrace_live_start(const char *dir, const struct utrace_live_ops *ops, struct utrace_live **out,
		      struct utrace_error *err)
{
	/* the source names the server: utrace reset leaves a live one's
	 * mount alone without asking it anything (live_reset.c) */
	char opts[64], *argv[] = {"utrace", "-o", opts, NULL};
	struct fuse_args args = FUSE_ARGS_INIT(3, argv);
	struct utrace_live *l;
	struct stat st;

	snprintf(opts, sizeof(opts), "fsname=utrace-%d,subtype=utrace", (int)getpid());
	/* said here in one line, before libfuse says it its own way */
	if (stat(dir, &st) < 0)
		return utrace_error_set(err, -errno, "%s: %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return utrace_error_set(err, -ENOTDIR, "%s: not a directory", dir);
	l = calloc(1, sizeof(*l));

	if (!l || !(l->dir = strdup(dir))) {
		free(l);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	l->root = l;
	pthread_mutex_init(&l->lock, NULL);
	sigaction(SIGUSR1, &(struct sigaction){.sa_handler = live_intr}, NULL);
	if (live_state_init(l, ops) < 0) {
		utrace_live_stop(l);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	l->fuse = fuse_new(&args, &live_ops, sizeof(live_ops), l);
	fuse_opt_free_args(&args); /* fuse_new's copy of them is its own */
	if (!l->fuse || fuse_mount(l->fuse, dir) != 0) {
		utrace_live_stop(l);
		return utrace_error_set(err, -EIO, "%s: cannot mount the tracefs (FUSE)", dir);
	}
	if (pthread_create(&l->thread, NULL, live_serve, l) != 0) {
		utrace_live_stop(l);
		return utrace_error_set(err, -EAGAIN, "%s: cannot start the tracefs thread", dir);
	}
	l->serving = true;
	*out = l;
	return 0;
}

void utrace_live_stop(struct utrace_live *l)
{
	if (!l)
		return;
	pthread_mutex_lock(&l->lock);
	l->stopping = true;
	pthread_mutex_unlock(&l->lock);
	if (l->fuse) {
		/* the loop ends when the unmount makes its read of /dev/fuse fail */
		fuse_exit(l->fuse);
		fuse_unmount(l->fuse);
		if (l->serving)
			pthread_join(l->thread, NULL);
		fuse_destroy(l->fuse);
	}
	/* the files a reader still had open when the mount went (a blocked
	 * cat of trace_pipe): the FUSE threads are gone, nothing releases
	 * them */
	while (l->open) {
		struct live_handle *h = l->open;

		handle_unlink(l, h);
		h->l->nopen--;
		handle_free(h);
	}
	live_inst_free_all(l);
	live_state_free(l);
	pthread_mutex_destroy(&l->lock);
	free(l->dir);
	free(l);
}
