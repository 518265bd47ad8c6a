/* SPDX-License-Identifier: MIT */
/*
 * fuzz_filter_prog.c - the filter interpreter (common/filter_prog.h) on
 * arbitrary programs: libutrace.so runs it inside the traced program and
 * "never trusts its input", so a malformed program must keep the event,
 * never read outside the program or the record, never loop.
 *
 * Input: a 2-byte little-endian program length, the program (its header's
 * size, version and magic are set to what utrace_filter_hdr_ok() wants,
 * so the instructions are what varies), then the record.
 */
#include "common/filter_prog.h"
#include "lib/events/event_filter.h"
#include "tests/fuzz/fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct utrace_filter_hdr *h;
	size_t plen, rlen;
	uint8_t *rec;
	char buf[512];
	void *prog;
	int ok;

	if (size < 2)
		return 0;
	plen = data[0] | (size_t)data[1] << 8;
	data += 2;
	size -= 2;
	if (plen > size)
		plen = size;
	rlen = size - plen;
	/* aligned (the interpreter wants 8) and of exactly plen bytes */
	if (posix_memalign(&prog, 8, plen ? plen : 1) || !(rec = malloc(rlen ? rlen : 1)))
		abort();
	memcpy(prog, data, plen);
	memcpy(rec, data + plen, rlen);
	h = prog;
	if (plen >= sizeof(*h)) {
		h->size = (uint32_t)plen;
		h->version = UTRACE_FILTER_VERSION;
		h->magic = UTRACE_FILTER_MAGIC;
	}
	ok = utrace_filter_check(prog, (uint32_t)plen) == 0;
	(void)utrace_filter_run(prog, (uint32_t)plen, rec, (uint32_t)rlen);
	/* the listing shows every program the check accepts, and only those */
	if ((utrace_filter_disasm(prog, (uint32_t)plen, buf, sizeof(buf)) >= 0) != ok)
		abort();
	free(rec);
	free(prog);
	return 0;
}
