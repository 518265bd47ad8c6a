/* SPDX-License-Identifier: MIT */
/*
 * dat_fixture.h - builds synthetic utrace.dat files for the reader and
 * report tests: one image with one object whose four function ids name
 * main, foo (site 4 bytes in, after endbr64), bar (a symbol of size 0)
 * and a site no symbol covers; CLOCK with 1 tick = 1 ns; sub-buffers are
 * written from hand-encoded record words (common/record.h).  Two more
 * objects without call sites, as shared libraries built without
 * instrumentation are, share id_base 0; one has a symbol table.
 * check() and the rest of tests/unit/check.h come with it.
 */
#ifndef UTRACE_TESTS_DAT_FIXTURE_H
#define UTRACE_TESTS_DAT_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rb_abi.h"
#include "common/record.h"
#include "lib/tracefile/dat_writer.h"
#include "tests/unit/check.h"

#define FX_IMAGE 1u
#define FX_BIAS 0x1000u
#define FX_LIB_BIAS 0x7f000000u
#define FX_EXE "/nonexistent/utrace-test"

/* A kernel event format's common fields, as every format lists them. */
#define FX_COMMON_FIELDS                                                                           \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"                     \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"             \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"

/* kev, id 7: a kernel event of one int, for kernel pages built by hand. */
#define FX_KEV_FORMAT                                                                              \
	"name: kev\n"                                                                              \
	"ID: 7\n"                                                                                  \
	"format:\n" FX_COMMON_FIELDS "\n"                                                          \
	"\tfield:int value;\toffset:8;\tsize:4;\tsigned:1;\n"                                      \
	"\n"                                                                                       \
	"print fmt: \"value=%d\", REC->value\n"

/* Record words of one sub-buffer. */
struct wl {
	uint32_t w[4096];
	uint32_t n;
};

static inline void wl_put(struct wl *l, uint32_t w)
{
	if (l->n < sizeof(l->w) / sizeof(l->w[0]))
		l->w[l->n++] = w;
}

static inline void wl_u64(struct wl *l, uint64_t v)
{
	wl_put(l, (uint32_t)v);
	wl_put(l, (uint32_t)(v >> 32));
}

static inline void wl_entry(struct wl *l, uint32_t id, uint32_t delta)
{
	wl_put(l, urec_entry(id, delta));
}

static inline void wl_exit(struct wl *l, uint32_t delta)
{
	wl_put(l, urec_exit(delta));
}

static inline void wl_func(struct wl *l, uint32_t id, uint32_t delta, uint64_t parent)
{
	wl_put(l, urec_func(id, delta));
	wl_u64(l, parent);
}

static inline void wl_ext(struct wl *l, enum utrace_ext_type type, uint32_t payload)
{
	wl_put(l, urec_ext(type, payload));
}

/* SWITCH: the thread goes on on program stack `to` (a coroutine's), where
 * depth frames are open, the innermost n with these ids */
static inline void wl_switch(struct wl *l, uint32_t delta, uint32_t from, uint32_t to,
			     uint32_t depth, uint32_t n, const uint32_t *ids)
{
	wl_ext(l, UEXT_SWITCH, n);
	wl_put(l, delta);
	wl_put(l, from);
	wl_put(l, to);
	wl_put(l, depth);
	for (uint32_t i = 0; i < n; i++)
		wl_put(l, ids[i]);
}

/* A call recorded at its return only (--thresh): GRAPH_LEAF. */
static inline void wl_leaf(struct wl *l, uint32_t delta, uint32_t id, uint32_t depth,
			   uint64_t duration)
{
	wl_ext(l, UEXT_GRAPH_LEAF, delta);
	wl_put(l, id);
	wl_put(l, depth);
	wl_u64(l, duration);
}

static inline void fx_die(const struct utrace_error *err)
{
	fprintf(stderr, "fixture: %s\n", err->msg);
	exit(2);
}

static inline void fx_write(struct utrace_dat_writer *w, enum utrace_dat_type type, const void *a,
			    size_t alen, const void *b, size_t blen)
{
	struct iovec iov[2] = {{(void *)a, alen}, {(void *)b, blen}};
	struct utrace_error err;

	if (utrace_dat_write(w, type, iov, b ? 2 : 1, &err) < 0)
		fx_die(&err);
}

static inline void fx_meta(struct utrace_dat_writer *w, const char *text)
{
	fx_write(w, UTRACE_DAT_META, text, strlen(text), NULL, 0);
}

/* Header, CLOCK, META, IMAGE, OBJECT, SITES, SYMTAB. */
static inline struct utrace_dat_writer *fx_begin(const char *path, const char *tracer)
{
	static const uint64_t sites[4] = {0x100, 0x204, 0x300, 0x400};
	static const char strs[] = "main\0foo\0bar\0baz";
	struct utrace_dat_sym syms[4] = {
	    {0x100, 0x50, 0}, {0x200, 0x40, 5}, {0x300, 0, 9}, {0x380, 0x10, 13}};
	struct utrace_dat_clock clk = {0, 0, 1000000000, 1000000000, 0};
	struct utrace_dat_image img = {FX_IMAGE, 100, 1, 0};
	struct utrace_dat_object obj = {FX_IMAGE, 0, 1, 0, 4, 0, FX_BIAS};
	struct utrace_dat_sites st = {FX_IMAGE, 0, 0, 4};
	struct utrace_dat_symtab sh = {FX_IMAGE, 0, 4, sizeof(strs)};
	struct utrace_dat_writer *w;
	struct utrace_error err;
	struct iovec iov[3];
	char meta[128];

	if (utrace_dat_writer_open(path, &w, &err) < 0)
		fx_die(&err);
	fx_write(w, UTRACE_DAT_CLOCK, &clk, sizeof(clk), NULL, 0);
	snprintf(meta, sizeof(meta), "tracer=%s\ncommand=test prog\nthresh_us=0\n", tracer);
	fx_meta(w, meta);
	/* paths that do not exist: no symbols from the disk */
	fx_write(w, UTRACE_DAT_IMAGE, &img, sizeof(img), FX_EXE, sizeof(FX_EXE));
	fx_write(w, UTRACE_DAT_OBJECT, &obj, sizeof(obj), FX_EXE, sizeof(FX_EXE));
	fx_write(w, UTRACE_DAT_SITES, &st, sizeof(st), sites, sizeof(sites));
	iov[0] = (struct iovec){&sh, sizeof(sh)};
	iov[1] = (struct iovec){syms, sizeof(syms)};
	iov[2] = (struct iovec){(void *)strs, sizeof(strs)};
	if (utrace_dat_write(w, UTRACE_DAT_SYMTAB, iov, 3, &err) < 0)
		fx_die(&err);

	/* libraries without call sites share id_base 0 with the program */
	obj = (struct utrace_dat_object){FX_IMAGE, 1, 0, 0, 0, 0, FX_LIB_BIAS};
	fx_write(w, UTRACE_DAT_OBJECT, &obj, sizeof(obj), "/nonexistent/libc.so.6", 23);
	obj = (struct utrace_dat_object){FX_IMAGE, 2, 0, 4, 0, 0, FX_LIB_BIAS * 2};
	fx_write(w, UTRACE_DAT_OBJECT, &obj, sizeof(obj), "/nonexistent/ld.so", 19);
	sh = (struct utrace_dat_symtab){FX_IMAGE, 1, 1, 11};
	syms[0] = (struct utrace_dat_sym){0x100, 0x80, 0};
	iov[1] = (struct iovec){syms, sizeof(syms[0])};
	iov[2] = (struct iovec){"libc_start", 11};
	if (utrace_dat_write(w, UTRACE_DAT_SYMTAB, iov, 3, &err) < 0)
		fx_die(&err);
	return w;
}

static inline void fx_buffer(struct utrace_dat_writer *w, uint32_t buf, int32_t tid,
			     const char *comm)
{
	struct utrace_dat_buffer b = {buf, FX_IMAGE, 100, tid, 0, 0, {0}};

	memcpy(b.comm, comm, strnlen(comm, sizeof(b.comm)));
	fx_write(w, UTRACE_DAT_BUFFER, &b, sizeof(b), NULL, 0);
}

static inline void fx_stats(struct utrace_dat_writer *w, uint32_t buf, uint64_t written,
			    uint64_t lost)
{
	struct utrace_dat_stats s = {buf, 0, written, lost, 1, 0};

	fx_write(w, UTRACE_DAT_STATS, &s, sizeof(s), NULL, 0);
}

struct fx_page {
	uint64_t ts;
	uint32_t seq, lost, cpu, flags, depth;
};

static inline void fx_page(struct utrace_dat_writer *w, uint32_t buf, const struct fx_page *p,
			   const struct wl *l)
{
	struct utrace_dat_page pg = {buf, 0};
	struct utrace_subbuf sb = {
	    p->ts, l->n * 4, p->seq, p->lost, (uint16_t)p->cpu, (uint16_t)p->flags, p->depth, 0};
	struct iovec iov[3] = {{&pg, sizeof(pg)}, {&sb, sizeof(sb)}, {(void *)l->w, l->n * 4}};
	struct utrace_error err;

	if (utrace_dat_write(w, UTRACE_DAT_PAGE, iov, 3, &err) < 0)
		fx_die(&err);
}

static inline void fx_end(struct utrace_dat_writer *w)
{
	struct utrace_error err;

	if (utrace_dat_writer_close(w, &err) < 0)
		fx_die(&err);
}

/*
 * The function_graph fixture, buffer 7 (test-100, cpu 2, from ts 1000):
 *   main() { foo(); bar() { 0x1400(); [cpu 3] foo(); } }
 * with a TIME_EXTEND and an EXIT_LONG.
 */
static inline void fx_graph_basic(struct utrace_dat_writer *w)
{
	struct fx_page p = {1000, 0, 0, 2, 0, 0};
	struct wl l = {.n = 0};

	fx_buffer(w, 7, 100, "test");
	wl_entry(&l, 0, 0);  /* main @1000 */
	wl_entry(&l, 1, 10); /* foo @1010 */
	wl_exit(&l, 5);	     /* @1015 */
	wl_entry(&l, 2, 5);  /* bar @1020 */
	wl_entry(&l, 3, 1);  /* 0x1400 @1021 */
	wl_ext(&l, UEXT_TIME_EXTEND, 0x10);
	wl_put(&l, 1);	/* + 0x1000010 */
	wl_exit(&l, 4); /* @16778257 */
	wl_ext(&l, UEXT_CPU, 3);
	wl_entry(&l, 1, 3); /* foo @16778260 */
	wl_exit(&l, 100);   /* @16778360 */
	wl_exit(&l, 7);	    /* bar @16778367 */
	wl_ext(&l, UEXT_EXIT_LONG, 0);
	wl_u64(&l, 2000000000ull); /* main @2016778367 */
	wl_put(&l, 0);		   /* PAD */
	wl_entry(&l, 0, 0);	   /* after PAD: ignored */
	fx_page(w, 7, &p, &l);
}

/* path with the function_graph fixture: fx_begin(), fx_graph_basic(). */
static inline void fx_write_graph_basic(const char *path)
{
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");

	fx_graph_basic(w);
	fx_end(w);
}

/*
 * Coroutines, buffer 1 (co-100, from ts 100): main() calls foo(), which
 * switches to program stack 7, where bar() starts; back on stack 0 foo
 * returns, on stack 7 bar does, and main last (at 200).
 */
static inline void fx_write_coro(const char *path)
{
	struct utrace_dat_writer *w = fx_begin(path, "function_graph");
	struct fx_page p1 = {100, 0, 0, 0, 0, 0};
	static const uint32_t main_foo[] = {0, 1}, bar[] = {2}, m[] = {0};
	struct wl l1 = {.n = 0};

	fx_buffer(w, 1, 100, "co");
	wl_entry(&l1, 0, 0);			  /* main @100 */
	wl_entry(&l1, 1, 10);			  /* foo @110 */
	wl_switch(&l1, 10, 0, 7, 0, 0, NULL);	  /* @120 */
	wl_entry(&l1, 2, 10);			  /* bar @130 */
	wl_switch(&l1, 10, 7, 0, 2, 2, main_foo); /* @140 */
	wl_exit(&l1, 10);			  /* foo @150 */
	wl_switch(&l1, 10, 0, 7, 1, 1, bar);	  /* @160 */
	wl_exit(&l1, 10);			  /* bar @170 */
	wl_switch(&l1, 10, 7, 0, 1, 1, m);	  /* @180 */
	wl_exit(&l1, 20);			  /* main @200 */
	fx_page(w, 1, &p1, &l1);
	fx_end(w);
}

/*
 * Recursion, buffer 1 (rec-100, cpu 0, from ts 1000):
 *   main() { foo() { foo() { foo(); } foo(); } }
 * main takes 200 ns, the foo()s 90, 30, 5 and 10.
 */
static inline void fx_graph_recursion(struct utrace_dat_writer *w)
{
	struct fx_page p = {1000, 0, 0, 0, 0, 0};
	struct wl l = {.n = 0};

	fx_buffer(w, 1, 100, "rec");
	wl_entry(&l, 0, 0);  /* main @1000 */
	wl_entry(&l, 1, 10); /* foo @1010 */
	wl_entry(&l, 1, 10); /* foo @1020 */
	wl_entry(&l, 1, 10); /* foo @1030 */
	wl_exit(&l, 5);	     /* @1035: 5 */
	wl_exit(&l, 15);     /* @1050: 30 */
	wl_entry(&l, 1, 10); /* foo @1060 */
	wl_exit(&l, 10);     /* @1070: 10 */
	wl_exit(&l, 30);     /* @1100: 90 */
	wl_exit(&l, 100);    /* main @1200: 200 */
	fx_page(w, 1, &p, &l);
}

/* n nested calls of foo, 1 ns apart, buffer 1 (deep-100, cpu 0): the
 * entries in a sub-buffer from ts 1000, the returns in one from 10000. */
static inline void fx_graph_deep(struct utrace_dat_writer *w, int n)
{
	struct fx_page p1 = {1000, 0, 0, 0, 0, 0}, p2 = {10000, 1, 0, 0, 0, 0};
	struct wl l1 = {.n = 0}, l2 = {.n = 0};

	fx_buffer(w, 1, 100, "deep");
	for (int i = 0; i < n; i++)
		wl_entry(&l1, 1, 1);
	fx_page(w, 1, &p1, &l1);
	for (int i = 0; i < n; i++)
		wl_exit(&l2, 1);
	fx_page(w, 1, &p2, &l2);
}

#endif
