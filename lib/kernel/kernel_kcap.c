/* SPDX-License-Identifier: MIT */
/*
 * kernel_kcap.c - user memory read at a kernel event by a BPF program of
 * ours on its tracepoint (kernel_kcap.h says why).
 *
 * The program is written here instruction by instruction (a few dozen;
 * there is no C-to-BPF compiler on the machine to build one from, and
 * its shape depends on the fields): libbpf loads it and reads the ring.
 * One BPF ring (BPF_MAP_TYPE_RINGBUF) serves every program of a set; each
 * hit reserves one record of a size fixed by its fields:
 *
 *   0  u64 pid_tgid         (bpf_get_current_pid_tgid: the thread is the low half)
 *   8  u64 ns               (bpf_ktime_get_ns: CLOCK_MONOTONIC)
 *  16  u32 tag, u32 n       (which attachment; its field count)
 *  24  u64 end              (bpf_ktime_get_ns again, the reads done)
 *  32  per field, in attach's order:
 *        STR:  u64 ptr, s64 ret, char s[64]
 *        STRV: u64 ptr, u64 elem[16], then per elem: s64 ret, char s[64]
 *      then with UTRACE_KCAP_COMM: char comm[16] (bpf_get_current_comm)
 *
 * where ptr is the field's value, elem the array's pointers (each read
 * with bpf_probe_read_user, zeroed by it when the read fails: a NULL is
 * the end), ret bpf_probe_read_user_str's result (the length with the
 * NUL, or <0).  A hit that finds the ring full adds one to the lost map
 * (an array of one u64, added atomically: hits run on every CPU at once)
 * and records nothing.  The ctx of a tracepoint's program is its raw
 * record, whose first 8 bytes the kernel has replaced with a pt_regs
 * pointer (the common fields): the pointer fields are after them.
 *
 * The reader's side is kernel_kcap_take.c.
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "lib/kernel/kernel_kcap_internal.h"

#define RING_BYTES (4u << 20) /* the BPF ring: 4 MiB, 50k string captures */
#define PROG_MAX 512u	      /* instructions */

int utrace_kcap_field_kind(const char *ctype, unsigned size, unsigned offset)
{
	const char *star = strchr(ctype, '*');

	if (size != 8 || offset % 8 || offset < 8 || !star || !strstr(ctype, "char"))
		return -1;
	return strchr(star + 1, '*') ? UTRACE_KCAP_STRV : UTRACE_KCAP_STR;
}

/* libbpf's messages go to the caller's error, not to stderr. */
static int quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}

int utrace_kcap_new(struct utrace_kcap **out, struct utrace_error *err)
{
	struct utrace_kcap *k = calloc(1, sizeof(*k));

	*out = NULL;
	if (!k)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	libbpf_set_print(quiet);
	k->lost_fd = -1;
	k->cur_tag = -1;
	k->ring_fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "utrace_kcap", 0, 0, RING_BYTES, NULL);
	if (k->ring_fd >= 0)
		k->lost_fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "utrace_kcap_lost", 4, 8, 1, NULL);
	if (k->lost_fd >= 0 && !(k->rb = ring_buffer__new(k->ring_fd, kcap_on_record, k, NULL)))
		k->lost_fd = (close(k->lost_fd), -1);
	if (k->ring_fd < 0 || k->lost_fd < 0) {
		int e = errno;

		utrace_kcap_free(k);
		return utrace_error_set(err, -e, "BPF map: %s", strerror(e));
	}
	*out = k;
	return 0;
}

/* ---- the program ---- */

struct prog {
	struct bpf_insn in[PROG_MAX];
	unsigned n;
};

static unsigned op(struct prog *p, uint8_t code, uint8_t dst, uint8_t src, int16_t off, int32_t imm)
{
	if (p->n < PROG_MAX)
		p->in[p->n] = (struct bpf_insn){
		    .code = code, .dst_reg = dst, .src_reg = src, .off = off, .imm = imm};
	return p->n++;
}

static void mov_imm(struct prog *p, int d, int32_t i)
{
	op(p, BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i);
}
static void mov_reg(struct prog *p, int d, int s)
{
	op(p, BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0);
}
static void add_imm(struct prog *p, int d, int32_t i)
{
	op(p, BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i);
}
static void ldx(struct prog *p, int d, int s, int16_t o)
{
	op(p, BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0);
}
static void stx(struct prog *p, int d, int s, int16_t o)
{
	op(p, BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0);
}
static void call(struct prog *p, int32_t fn)
{
	op(p, BPF_JMP | BPF_CALL, 0, 0, 0, fn);
}

static void map_fd(struct prog *p, int d, int fd)
{
	op(p, BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd);
	op(p, 0, 0, 0, 0, 0);
}

/* The jump at `at` made to land on the next instruction. */
static void land(struct prog *p, unsigned at)
{
	if (at < PROG_MAX)
		p->in[at].off = (int16_t)(p->n - at - 1);
}

/* The string at the pointer in the record at r7+ptr, into the string
 * read (KCAP_SBLOCK) at r7+sb: its bytes at sb+8, the result at sb. */
static void read_str(struct prog *p, unsigned ptr, unsigned sb)
{
	mov_reg(p, BPF_REG_1, BPF_REG_7);
	add_imm(p, BPF_REG_1, (int32_t)(sb + 8));
	mov_imm(p, BPF_REG_2, UTRACE_KCAP_STRLEN);
	ldx(p, BPF_REG_3, BPF_REG_7, (int16_t)ptr);
	call(p, BPF_FUNC_probe_read_user_str);
	stx(p, BPF_REG_7, BPF_REG_0, (int16_t)sb);
}

/* Field f's reads into the record at o; the block's size. */
static uint32_t field(struct prog *p, const struct utrace_kcap_field *f, uint32_t o)
{
	ldx(p, BPF_REG_1, BPF_REG_6, (int16_t)f->offset); /* the pointer, from ctx */
	stx(p, BPF_REG_7, BPF_REG_1, (int16_t)o);
	if (f->kind == UTRACE_KCAP_STR) {
		read_str(p, o, o + 8);
		return kcap_block_size(f->kind);
	}
	for (unsigned i = 0; i < UTRACE_KCAP_STRV_MAX; i++) { /* elem[i] = ptr[i] */
		mov_reg(p, BPF_REG_1, BPF_REG_7);
		add_imm(p, BPF_REG_1, (int32_t)(o + 8 + 8 * i));
		mov_imm(p, BPF_REG_2, 8);
		ldx(p, BPF_REG_3, BPF_REG_7, (int16_t)o);
		add_imm(p, BPF_REG_3, (int32_t)(8 * i));
		call(p, BPF_FUNC_probe_read_user);
	}
	for (unsigned i = 0; i < UTRACE_KCAP_STRV_MAX; i++)
		read_str(p, o + 8 + 8 * i, KCAP_STRV_STR(o, i));
	return kcap_block_size(f->kind);
}

/* The program of tag reading f[0..n) (and the thread's name at a->comm_at,
 * if not 0), records of size a->size. */
static void build(struct prog *p, const struct utrace_kcap *k, int tag,
		  const struct utrace_kcap_field *f, unsigned n, struct kc_attach *a, bool comm)
{
	unsigned full, none, out2;
	uint32_t o = KCAP_HDR;

	a->size = KCAP_HDR;
	for (unsigned i = 0; i < n; i++)
		a->size += kcap_block_size(f[i].kind);
	a->comm_at = comm ? a->size : 0;
	a->size += comm ? UTRACE_KCAP_COMMLEN : 0;
	mov_reg(p, BPF_REG_6, BPF_REG_1);
	map_fd(p, BPF_REG_1, k->ring_fd);
	mov_imm(p, BPF_REG_2, (int32_t)a->size);
	mov_imm(p, BPF_REG_3, 0);
	call(p, BPF_FUNC_ringbuf_reserve);
	full = op(p, BPF_JMP | BPF_JNE | BPF_K, BPF_REG_0, 0, 0, 0);
	/* the ring is full: lost[0] += 1 */
	op(p, BPF_ST | BPF_MEM | BPF_W, BPF_REG_10, 0, -4, 0);
	mov_reg(p, BPF_REG_2, BPF_REG_10);
	add_imm(p, BPF_REG_2, -4);
	map_fd(p, BPF_REG_1, k->lost_fd);
	call(p, BPF_FUNC_map_lookup_elem);
	none = op(p, BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 0, 0);
	mov_imm(p, BPF_REG_1, 1);
	op(p, BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_0, BPF_REG_1, 0, BPF_ADD);
	out2 = op(p, BPF_JMP | BPF_JA, 0, 0, 0, 0);
	land(p, full);
	mov_reg(p, BPF_REG_7, BPF_REG_0);
	call(p, BPF_FUNC_get_current_pid_tgid);
	stx(p, BPF_REG_7, BPF_REG_0, 0);
	call(p, BPF_FUNC_ktime_get_ns);
	stx(p, BPF_REG_7, BPF_REG_0, 8);
	op(p, BPF_ST | BPF_MEM | BPF_W, BPF_REG_7, 0, 16, tag);
	op(p, BPF_ST | BPF_MEM | BPF_W, BPF_REG_7, 0, 20, (int32_t)n);
	for (unsigned i = 0; i < n; i++)
		o += field(p, &f[i], o);
	if (comm) { /* the name at the hit: the record has only the pid */
		mov_reg(p, BPF_REG_1, BPF_REG_7);
		add_imm(p, BPF_REG_1, (int32_t)a->comm_at);
		mov_imm(p, BPF_REG_2, UTRACE_KCAP_COMMLEN);
		call(p, BPF_FUNC_get_current_comm);
	}
	call(p, BPF_FUNC_ktime_get_ns);
	stx(p, BPF_REG_7, BPF_REG_0, 24);
	mov_reg(p, BPF_REG_1, BPF_REG_7);
	mov_imm(p, BPF_REG_2, BPF_RB_NO_WAKEUP); /* the reader polls: no wakeup IPI a hit */
	call(p, BPF_FUNC_ringbuf_submit);
	land(p, none);
	land(p, out2);
	mov_imm(p, BPF_REG_0, 0);
	op(p, BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
}

/* The verifier's last line of log (what it refused). */
static const char *last_line(char *log)
{
	size_t n = strlen(log);
	char *nl;

	while (n && log[n - 1] == '\n')
		log[--n] = 0;
	nl = strrchr(log, '\n');
	return nl ? nl + 1 : log;
}

static int load(const struct prog *p, struct utrace_error *err)
{
	LIBBPF_OPTS(bpf_prog_load_opts, o);
	int fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "utrace_kcap", "Dual MIT/GPL", p->in, p->n,
			       NULL);
	int e = errno;

	if (fd >= 0)
		return fd;
	/* again with the verifier's log, for what it refused */
	o.log_size = 65536;
	if ((o.log_buf = calloc(1, o.log_size))) {
		o.log_level = 1;
		if ((fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "utrace_kcap", "Dual MIT/GPL",
					p->in, p->n, &o)) >= 0) {
			free(o.log_buf);
			return fd;
		}
		e = errno;
	}
	fd = utrace_error_set(err, -e, "BPF program: %s%s%s", strerror(e),
			      o.log_buf && o.log_buf[0] ? ": " : "",
			      o.log_buf ? last_line(o.log_buf) : "");
	free(o.log_buf);
	return fd;
}

/* The program on event_id, every CPU's hits (a tracepoint runs its BPF
 * programs wherever it fires; the perf event only holds it). */
static int attach(int event_id, int prog_fd, struct utrace_error *err)
{
	struct perf_event_attr a = {
	    .type = PERF_TYPE_TRACEPOINT,
	    .size = sizeof(a),
	    .config = (uint64_t)event_id,
	    .sample_period = 1,
	    .wakeup_events = 1,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);

	if (fd < 0)
		return utrace_error_set(err, -errno, "perf_event_open(tracepoint %d): %s", event_id,
					strerror(errno));
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog_fd) < 0 ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		int e = errno;

		close(fd);
		return utrace_error_set(err, -e, "attach to tracepoint %d: %s", event_id,
					strerror(e));
	}
	return fd;
}

int utrace_kcap_attach(struct utrace_kcap *k, int event_id, const struct utrace_kcap_field *f,
		       unsigned n, unsigned flags, struct utrace_error *err)
{
	struct prog *p;
	struct kc_attach *at, a = {.n = n, .perf_fd = -1};
	int tag = (int)k->nat;
	bool comm = flags & UTRACE_KCAP_COMM;

	if ((!n && !comm) || n > UTRACE_KCAP_FIELDS_MAX)
		return utrace_error_set(err, -EINVAL, "%u fields to read at an event (%u to %u)", n,
					!comm, UTRACE_KCAP_FIELDS_MAX);
	if (!(p = calloc(1, sizeof(*p))) || !(at = realloc(k->at, (k->nat + 1) * sizeof(*at)))) {
		free(p);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	k->at = at;
	build(p, k, tag, f, n, &a, comm);
	a.prog_fd =
	    p->n <= PROG_MAX ? load(p, err) : utrace_error_set(err, -E2BIG, "BPF program too long");
	free(p);
	if (a.prog_fd < 0)
		return a.prog_fd;
	if ((a.perf_fd = attach(event_id, a.prog_fd, err)) < 0) {
		close(a.prog_fd);
		return a.perf_fd;
	}
	for (unsigned i = 0; i < n; i++)
		a.kind[i] = f[i].kind;
	k->at[k->nat++] = a;
	return tag;
}

uint64_t utrace_kcap_lost(const struct utrace_kcap *k)
{
	uint64_t lost = 0;
	uint32_t key = 0;

	if (!k)
		return 0;
	if (k->lost_fd >= 0 && bpf_map_lookup_elem(k->lost_fd, &key, &lost) < 0)
		lost = 0;
	return lost + k->dropped;
}

void utrace_kcap_free(struct utrace_kcap *k)
{
	if (!k)
		return;
	for (unsigned i = 0; i < k->nat; i++) {
		close(k->at[i].perf_fd);
		close(k->at[i].prog_fd);
	}
	ring_buffer__free(k->rb);
	kcap_threads_free(k);
	free(k->at);
	if (k->ring_fd >= 0)
		close(k->ring_fd);
	if (k->lost_fd >= 0)
		close(k->lost_fd);
	free(k);
}
