/* SPDX-License-Identifier: MIT */
/*
 * test_hist_stack.c - the stacktrace key of hist triggers
 * (hist:keys=common_stacktrace, or its alias stacktrace): compiled into
 * one STACK instruction that fills 16 frames (the kernel's
 * HIST_STACKTRACE_DEPTH) of the key from the context's stack callback,
 * zeros after the last; hits with the same stack add to one entry, a
 * different or shorter stack is an entry of its own; a STACK that does
 * not fit the key is refused by the interpreter.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "common/hist_prog.h"
#include "lib/hist/hist_compile.h"
#include "tests/unit/check.h"

struct rec {
	uint16_t type;
	uint8_t flags, preempt;
	int32_t pid;
	int32_t id, pad;
};

static const struct utrace_event_field fields[] = {
    UTRACE_EVENT_COMMON_FIELDS,
    {"int", "id", "id", 8, 4, true, false, UTRACE_EF_INT},
};
static const struct utrace_event_format fmt = {
    .system = "app",
    .name = "ev",
    .rec_size = 16,
    .nr_fields = 5,
    .fields = fields,
    .print_fmt = "\"id=%d\", REC->id",
};

/* The stack the next hit has: frames[0..nr_frames). */
static uint64_t frames[20];
static uint32_t nr_frames;

static uint32_t stack_cb(void *arg, uint64_t *pcs, uint32_t max)
{
	uint32_t n = nr_frames < max ? nr_frames : max;

	(void)arg;
	memcpy(pcs, frames, n * sizeof(*pcs));
	return n;
}

struct table {
	union {
		struct utrace_hist_hdr h;
		uint64_t words[512];
	} p;
	struct utrace_hist_map *map;
	uint64_t size;
};

static int compile_into(struct table *t, const char *text)
{
	struct utrace_error err = {0};
	struct utrace_hist_spec *s;
	void *prog;
	uint32_t len;
	int code = 0;

	if (utrace_hist_parse(text, &s, &code, &err) < 0 ||
	    utrace_hist_compile_env(s, &fmt, NULL, &prog, &len, &code, &err) < 0) {
		check(0, "%s compiles: %s", text, err.msg);
		return -1;
	}
	utrace_hist_spec_free(s);
	memset(t, 0, sizeof(*t));
	check(len <= sizeof(t->p) && utrace_hist_hdr_ok(prog, len), "%s: compiled and checked",
	      text);
	memcpy(&t->p, prog, len);
	free(prog);
	t->size = utrace_hist_map_bytes(t->p.h.map_bits, t->p.h.key_size, t->p.h.nr_sums);
	t->map = mmap(NULL, t->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	t->map->magic = UTRACE_HIST_MAP_MAGIC;
	t->map->bits = t->p.h.map_bits;
	t->map->key_size = t->p.h.key_size;
	t->map->nr_sums = t->p.h.nr_sums;
	return 0;
}

static void hit(struct table *t, int id)
{
	struct rec r = {.id = id};
	struct utrace_hist_ctx c = {
	    .rec = (const uint8_t *)&r, .rec_len = sizeof(r), .stack = stack_cb};

	utrace_hist_run(&t->p.h, t->map, &c);
}

/* The hit count of the entry whose key starts with stack[0..n) then zeros. */
static uint64_t hits_of(struct table *t, const uint64_t *stack, uint32_t n)
{
	uint64_t key[16] = {0};
	uint8_t *e;

	memcpy(key, stack, n * sizeof(*stack));
	e = utrace_hist_map_find(t->map, (const uint8_t *)key);
	return e ? ((uint64_t *)(e + t->map->key_size))[0] : 0;
}

static void test_key(void)
{
	static const uint64_t a[3] = {0x401000, 0x401100, 0x401200};
	static const uint64_t b[2] = {0x401000, 0x401100};
	const struct utrace_hist_insn *in;
	struct table t;

	if (compile_into(&t, "hist:keys=common_stacktrace") < 0)
		return;
	in = utrace_hist_insns(&t.p.h);
	check(t.p.h.key_size == 128 && t.p.h.nr_key_insns == 1 && in[0].op == UTRACE_HOP_STACK &&
		  in[0].len == 128 && in[0].key_off == 0,
	      "one STACK of 16 frames is the key (key_size %u, op %u)", t.p.h.key_size, in[0].op);
	check(t.p.h.slots[0].kind == UTRACE_HSLOT_NUM && t.p.h.slots[0].len == 128,
	      "its slot: 16 addresses for the printer");
	memcpy(frames, a, sizeof(a));
	nr_frames = 3;
	hit(&t, 1);
	hit(&t, 2);
	memcpy(frames, b, sizeof(b));
	nr_frames = 2;
	hit(&t, 3);
	for (uint32_t i = 0; i < 20; i++)
		frames[i] = 0x500000 + i;
	nr_frames = 20;
	hit(&t, 4);
	check(hits_of(&t, a, 3) == 2, "the same stack twice: one entry, 2 hits");
	check(hits_of(&t, b, 2) == 1, "a shorter stack (a prefix of it) is an entry of its own");
	check(hits_of(&t, frames, 16) == 1, "a deeper stack is cut at 16 frames");
	check(t.map->next_elt == 3, "three entries in all (%llu)",
	      (unsigned long long)t.map->next_elt);
	munmap(t.map, t.size);

	if (compile_into(&t, "hist:keys=id,stacktrace") < 0)
		return;
	in = utrace_hist_insns(&t.p.h);
	check(t.p.h.key_size == 136 && in[t.p.h.nr_key_insns - 1].op == UTRACE_HOP_STACK &&
		  in[t.p.h.nr_key_insns - 1].key_off == 8,
	      "stacktrace (the alias) after a number: at key offset 8");
	nr_frames = 3;
	hit(&t, 5);
	check(t.map->next_elt == 1, "the key compiled as it is takes its entry");
	/* a STACK that would write past the key: the hit is dropped */
	((struct utrace_hist_insn *)utrace_hist_insns(&t.p.h))[t.p.h.nr_key_insns - 1].key_off = 16;
	hit(&t, 6);
	check(t.map->next_elt == 1, "a STACK past the key's end: the hit is dropped, no entry");
	munmap(t.map, t.size);
}

int main(void)
{
	test_key();
	return check_done();
}
