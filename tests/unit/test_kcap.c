/* SPDX-License-Identifier: MIT */
/*
 * test_kcap.c - which fields of a kernel event's format a capture reads
 * at the event (lib/kernel/kernel_kcap.c): a `char *` field its string, a
 * `char **` one its array of strings, as the kernel's format files type
 * them (sys_enter_openat's "const char * filename", sys_enter_execve's
 * "const char *const * argv"); not an integer, a pointer to anything else
 * than chars, a field that is not 8 bytes, nor one the BPF program cannot
 * load from its context (offset not 8-aligned, or in the common fields,
 * which the kernel replaces with a pt_regs pointer).  And how a load is
 * served from the memory a capture read (utrace_kcap_regions_load): a
 * string read a word at a time, two strings side by side in one word, the
 * NUL one past a string, a word none holds a fault.  And which capture a
 * record takes (utrace_kcap_take, fed records as the BPF ring would give
 * them): of its thread's whose fields held the record's values, the one
 * nearest its time (not one whose record never came, nor one far from
 * it: the record's own was lost), the same again for a second take of
 * the same hit (a record two probes of its event run), the next one for
 * the thread's next hit.  The BPF side runs in the kernel tier
 * (tests/kernel/bt_tracepoint.sh, bt_comm.sh, tracefs_eprobe.sh).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/kernel/kernel_kcap_internal.h"
#include "tests/unit/check.h"

/* "/etc" at 0x1003 (its NUL at 0x1007), "ab" right after at 0x1008. */
static void regions(void)
{
	const struct utrace_kcap_region rg[] = {{0x1003, (const uint8_t *)"/etc", 4},
						{0x1008, (const uint8_t *)"ab", 2}};
	uint64_t v = 1;

	check(utrace_kcap_regions_load(rg, 2, 0x1000, 8, &v) == 0 &&
		  v == ((uint64_t)'/' << 24 | (uint64_t)'e' << 32 | (uint64_t)'t' << 40 |
			(uint64_t)'c' << 48),
	      "a word with a string's start: its bytes, 0 before and at its NUL");
	check(utrace_kcap_regions_load(rg, 2, 0x1008, 8, &v) == 0 && v == ('a' | 'b' << 8),
	      "the next string's word: its bytes and its NUL");
	check(utrace_kcap_regions_load(rg, 2, 0x1006, 4, &v) == 0 &&
		  v == ('c' | (uint64_t)'a' << 16 | (uint64_t)'b' << 24),
	      "a load across both: each byte from the string that has it");
	check(utrace_kcap_regions_load(rg, 2, 0x1010, 8, &v) == -1 && v == 0,
	      "a word none holds: a fault");
	check(utrace_kcap_regions_load(rg, 0, 0x1003, 1, &v) == -1, "no regions: a fault");
}

/* A capture of tag 0 (one STR field) by thread tid whose program ran
 * from ns for run ns: the field held ptr, which pointed to s. */
static void feed_run(struct utrace_kcap *k, int tid, uint64_t ns, uint64_t run, uint64_t ptr,
		     const char *s)
{
	uint64_t end = ns + run;

	uint8_t rec[KCAP_HDR + KCAP_SBLOCK + 8] = {0};
	uint64_t id = (uint64_t)tid << 32 | (uint32_t)tid;
	int64_t ret = (int64_t)strlen(s) + 1;
	uint32_t n = 1;

	memcpy(rec, &id, 8);
	memcpy(rec + 8, &ns, 8);
	memcpy(rec + 20, &n, 4);
	memcpy(rec + 24, &end, 8);
	memcpy(rec + KCAP_HDR, &ptr, 8);
	memcpy(rec + KCAP_HDR + 8, &ret, 8);
	memcpy(rec + KCAP_HDR + 16, s, strlen(s));
	kcap_on_record(k, rec, sizeof(rec));
}

/* The same, its program run in no time. */
static void feed(struct utrace_kcap *k, int tid, uint64_t ns, uint64_t ptr, const char *s)
{
	feed_run(k, tid, ns, 0, ptr, s);
}

/* The string a take of thread tid's hit at ns (its field holding ptr)
 * finds at ptr, "" if none. */
static const char *taken(struct utrace_kcap *k, int tid, uint64_t ns, uint64_t ptr)
{
	static char s[UTRACE_KCAP_STRLEN];
	struct utrace_kcap_region rg[4];
	unsigned n = utrace_kcap_take(k, tid, 0, ns, &ptr, 1, rg, 4);

	s[0] = 0;
	if (n && rg[0].addr == ptr && rg[0].len < sizeof(s)) {
		memcpy(s, rg[0].bytes, rg[0].len);
		s[rg[0].len] = 0;
	}
	return s;
}

static void takes(void)
{
	struct utrace_kcap *k = calloc(1, sizeof(*k));
	struct kc_attach *a = calloc(1, sizeof(*a));

	if (!k || !a) {
		check(0, "memory for a capture set");
		free(k);
		free(a);
		return;
	}
	*a = (struct kc_attach){.perf_fd = -1,
				.prog_fd = -1,
				.n = 1,
				.kind = {UTRACE_KCAP_STR},
				.size = KCAP_HDR + kcap_block_size(UTRACE_KCAP_STR)};
	k->ring_fd = k->lost_fd = -1;
	k->cur_tag = -1;
	k->at = a;
	k->nat = 1;
	/* thread 7 opens one buffer twice, thread 8 another: the ring
	 * holds them all before the first record is read */
	feed(k, 7, 1000, 0x5000, "first");
	feed(k, 8, 1500, 0x6000, "other");
	feed(k, 7, 2000, 0x5000, "second");
	check(!strcmp(taken(k, 7, 1000, 0x5000), "first"), "a record takes its thread's capture");
	check(!strcmp(taken(k, 7, 1000, 0x5000), "first"),
	      "a second take of the same hit (a second probe of the event): the same capture");
	check(!strcmp(taken(k, 8, 1500, 0x6000), "other"), "another thread's its own");
	check(!strcmp(taken(k, 8, 1500, 0x6000), "other"), "and again the same");
	check(!strcmp(taken(k, 7, 2000, 0x5000), "second"), "the thread's next hit: the next one");
	check(!strcmp(taken(k, 7, 3000, 0x5000), ""), "a hit with no capture (lost): none");
	check(!strcmp(taken(k, 7, 3000, 0x5000), ""), "and none again");
	/* thread 9: a hit whose record the reader left out (the runtime's
	 * own), then two whose records come 700 ns after their captures */
	feed(k, 9, 100000, 0x7000, "own");
	feed(k, 9, 150000, 0x7000, "program's");
	feed(k, 9, 154000, 0x7000, "next");
	check(!strcmp(taken(k, 9, 150700, 0x7000), "program's"),
	      "a capture whose record never came passed over: the one nearest the record's time");
	check(!strcmp(taken(k, 9, 154700, 0x7000), "next"), "then the next");
	/* thread 10: the capture of its second hit lost (the ring full) */
	feed(k, 10, 200000, 0x8000, "one");
	feed(k, 10, 400000, 0x8000, "three");
	check(!strcmp(taken(k, 10, 200700, 0x8000), "one"), "a hit's capture");
	check(!strcmp(taken(k, 10, 300700, 0x8000), ""),
	      "a hit whose capture was lost: none, not the next hit's");
	check(!strcmp(taken(k, 10, 400700, 0x8000), "three"), "the next hit: its own");
	/* thread 11: a program that runs 12 us (an argv read), its record
	 * written after it */
	feed_run(k, 11, 500000, 12000, 0x9000, "long");
	check(!strcmp(taken(k, 11, 512700, 0x9000), "long"),
	      "a record written after a long program run: its capture");
	utrace_kcap_free(k);
}

int main(void)
{
	check(utrace_kcap_field_kind("const char *", 8, 24) == UTRACE_KCAP_STR,
	      "sys_enter_openat's filename: a string");
	check(utrace_kcap_field_kind("char *", 8, 16) == UTRACE_KCAP_STR, "char *: a string");
	check(utrace_kcap_field_kind("const char *const *", 8, 24) == UTRACE_KCAP_STRV,
	      "sys_enter_execve's argv: an array of strings");
	check(utrace_kcap_field_kind("char **", 8, 32) == UTRACE_KCAP_STRV,
	      "char **: an array of strings");
	check(utrace_kcap_field_kind("unsigned long", 8, 16) < 0, "an integer: nothing read");
	check(utrace_kcap_field_kind("struct stat *", 8, 24) < 0, "a pointer to a struct: nothing");
	check(utrace_kcap_field_kind("const char *", 4, 24) < 0, "a 4-byte field: nothing");
	check(utrace_kcap_field_kind("const char *", 8, 20) < 0,
	      "an offset a BPF program cannot load 8 bytes from: nothing");
	check(utrace_kcap_field_kind("char *", 8, 0) < 0, "the common fields: nothing");
	regions();
	takes();
	return check_done();
}
