/* SPDX-License-Identifier: MIT */
/*
 * eh_frame.c - the FDE ranges of .eh_frame (the format of the LSB's
 * "Exception Frames" chapter, DWARF CFI with GNU pointer encodings).
 *
 * Design: a linear walk of the section's records.  A CIE gives the
 * encoding of its FDEs' addresses (augmentation 'R'); an FDE's
 * initial_location (in that encoding, usually pc-relative sdata4) and
 * address_range (the same format, never pc-relative) give one range.  Of
 * the call frame instructions only those before the first advance_loc
 * are read (the CIE's, then the FDE's): they say whether the range starts
 * as a function does, at a call (cfi_entry).  Every read is bounds-checked on
 * the section's bytes: a corrupt record ends the walk, never a fault.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lib/base/grow.h"
#include "lib/elf/eh_frame.h"

struct ehp {
	const uint8_t *p, *end;
	uint64_t vaddr; /* of p[0] when the walk started at the section */
	const uint8_t *base;
};

static bool get(struct ehp *e, void *out, size_t n)
{
	if ((size_t)(e->end - e->p) < n)
		return false;
	memcpy(out, e->p, n);
	e->p += n;
	return true;
}

static bool uleb(struct ehp *e, uint64_t *v)
{
	unsigned shift = 0;

	*v = 0;
	while (e->p < e->end && shift < 64) {
		uint8_t b = *e->p++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

static bool sleb(struct ehp *e, int64_t *v)
{
	unsigned shift = 0;
	uint64_t r = 0;
	uint8_t b = 0x80;

	while (e->p < e->end && shift < 64 && (b & 0x80)) {
		b = *e->p++;
		r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	}
	if (b & 0x80)
		return false;
	if (shift < 64 && (b & 0x40))
		r |= ~0ull << shift;
	*v = (int64_t)r;
	return true;
}

/* A pointer in encoding enc; pcrel against its own vaddr. */
static bool encoded(struct ehp *e, uint8_t enc, bool ignore_rel, uint64_t *v)
{
	uint64_t at = e->vaddr + (uint64_t)(e->p - e->base), u = 0;
	int64_t s = 0;
	uint16_t u2 = 0;
	uint32_t u4 = 0;
	int16_t s2 = 0;
	int32_t s4 = 0;
	bool ok;

	switch (enc & 0x0f) {
	case 0x00:
		ok = get(e, &u, 8);
		break;
	case 0x01:
		ok = uleb(e, &u);
		break;
	case 0x02:
		ok = get(e, &u2, 2);
		u = u2;
		break;
	case 0x03:
		ok = get(e, &u4, 4);
		u = u4;
		break;
	case 0x04:
		ok = get(e, &u, 8);
		break;
	case 0x09:
		ok = sleb(e, &s);
		u = (uint64_t)s;
		break;
	case 0x0a:
		ok = get(e, &s2, 2);
		u = (uint64_t)(int64_t)s2;
		break;
	case 0x0b:
		ok = get(e, &s4, 4);
		u = (uint64_t)(int64_t)s4;
		break;
	case 0x0c:
		ok = get(e, &u, 8);
		break;
	default:
		return false;
	}
	if (!ok)
		return false;
	if (!ignore_rel && (enc & 0x70) == 0x10)
		u += at;
	else if (!ignore_rel && (enc & 0x70) != 0)
		return false; /* datarel, textrel, funcrel: not used on x86-64 */
	*v = u;
	return true;
}

/*
 * The CFA rules at the start of a range, from instructions [e->p, end)
 * up to the first advance_loc: whether they are a function entry's
 * (x86-64 DWARF registers: 7 rsp, 16 the return address).  *cfa_ok and
 * *saved carry the state from the CIE's instructions to the FDE's.
 */
static void cfi_entry(struct ehp e, const uint8_t *end, bool *cfa_ok, bool *saved)
{
	uint64_t reg, off;

	e.end = end;
	while (e.p < e.end) {
		uint8_t op = *e.p++;

		if ((op & 0xc0) == 0x40 || op == 0x02 || op == 0x03 || op == 0x04)
			return;		   /* advance_loc: the start's rules are complete */
		if ((op & 0xc0) == 0x80) { /* offset: a register saved */
			*saved |= (op & 0x3f) != 16;
			if (!uleb(&e, &off))
				return;
			continue;
		}
		if ((op & 0xc0) == 0xc0 || op == 0x00 || op == 0x0a || op == 0x0b)
			continue; /* restore, nop, remember/restore_state */
		switch (op) {
		case 0x0c: /* def_cfa */
			if (!uleb(&e, &reg) || !uleb(&e, &off))
				return;
			*cfa_ok = reg == 7 && off == 8;
			break;
		case 0x0d: /* def_cfa_register */
			if (!uleb(&e, &reg))
				return;
			*cfa_ok &= reg == 7;
			break;
		case 0x0e: /* def_cfa_offset */
			if (!uleb(&e, &off))
				return;
			*cfa_ok &= off == 8;
			break;
		case 0x07: /* undefined: no return address at all (_start) */
		case 0x08: /* same_value */
		case 0x2e: /* GNU_args_size */
			if (!uleb(&e, &reg))
				return;
			*saved |= op == 0x07 && reg == 16;
			break;
		default: /* offset_extended, expressions, ...: not an entry's */
			*saved = true;
			return;
		}
	}
}

/* The FDE pointer encoding of the CIE at c (up to end); false if the CIE
 * cannot be read.  *insns: where its instructions start. */
static bool cie_encoding(struct ehp e, uint8_t *fde_enc, const uint8_t **insns, bool *aug_z)
{
	uint8_t version, b;
	const char *aug;
	uint64_t u;
	int64_t s;

	*fde_enc = 0; /* absptr */
	if (!get(&e, &version, 1))
		return false;
	aug = (const char *)e.p;
	while (e.p < e.end && *e.p)
		e.p++;
	if (e.p++ >= e.end)
		return false;
	if (!uleb(&e, &u) || !sleb(&e, &s))
		return false;
	if (version == 1 ? !get(&e, &b, 1) : !uleb(&e, &u))
		return false;
	*aug_z = aug[0] == 'z';
	*insns = e.p;
	if (aug[0] != 'z')
		return aug[0] == 0;
	if (!uleb(&e, &u) || u > (uint64_t)(e.end - e.p))
		return false;
	*insns = e.p + u;
	for (const char *a = aug + 1; *a; a++) {
		uint64_t ptr;

		if (*a == 'R') {
			if (!get(&e, fde_enc, 1))
				return false;
		} else if (*a == 'P') {
			if (!get(&e, &b, 1) || !encoded(&e, b & 0x7f, false, &ptr))
				return false;
		} else if (*a == 'L') {
			if (!get(&e, &b, 1))
				return false;
		} else if (*a != 'S' && *a != 'B') {
			return false;
		}
	}
	return true;
}

static int range_cmp(const void *a, const void *b)
{
	const struct utrace_fde_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* Appends one range to *out (growing it). */
static int push(struct utrace_fde_range **out, size_t *n, size_t *cap, uint64_t start,
		uint64_t size, bool entry)
{
	if (UTRACE_GROW(*out, *cap, *n + 1) < 0)
		return -ENOMEM;
	(*out)[(*n)++] = (struct utrace_fde_range){start, size, entry};
	return 0;
}

/* One record at e->p: its range appended if it is an FDE.  1 to go on,
 * 0 at the end (terminator or corrupt), <0 out of memory. */
static int record(struct ehp *e, struct utrace_fde_range **out, size_t *n, size_t *cap)
{
	uint32_t len32, id;
	const uint8_t *rec_end, *id_at;
	struct ehp c = *e;
	uint64_t start, size, alen = 0;
	const uint8_t *cie_insns, *cie_end;
	bool aug_z = false, cfa_ok = true, saved = false;
	uint32_t cie_len;
	uint8_t enc;

	if (!get(e, &len32, 4) || len32 == 0 || len32 == 0xffffffffu ||
	    len32 > (size_t)(e->end - e->p))
		return 0;
	rec_end = e->p + len32;
	id_at = e->p;
	if (!get(e, &id, 4))
		return 0;
	if (id) {
		if ((size_t)(id_at - e->base) < id)
			return 0;
		c.p = id_at - id + 4; /* past the CIE's length: its id */
		if (c.p - 4 < e->base || c.p + 4 > e->end || c.p[0] | c.p[1] | c.p[2] | c.p[3])
			return 0;
		memcpy(&cie_len, c.p - 4, 4);
		if (cie_len < 4 || cie_len > (size_t)(e->end - c.p))
			return 0;
		cie_end = c.p + cie_len;
		c.end = cie_end;
		c.p += 4;
		if (!cie_encoding(c, &enc, &cie_insns, &aug_z) || !encoded(e, enc, false, &start) ||
		    !encoded(e, enc & 0x0f, true, &size) || (aug_z && !uleb(e, &alen)) ||
		    alen > (uint64_t)(rec_end - e->p))
			return 0;
		c.p = cie_insns;
		cfi_entry(c, cie_end, &cfa_ok, &saved);
		cfi_entry((struct ehp){e->p + alen, rec_end, 0, e->base}, rec_end, &cfa_ok, &saved);
		if (size && start && push(out, n, cap, start, size, cfa_ok && !saved) < 0)
			return -ENOMEM;
	}
	e->p = rec_end;
	return 1;
}

int utrace_elf_fde_ranges(const struct utrace_elf *elf, struct utrace_fde_range **out, size_t *n)
{
	struct utrace_elf_section sec;
	const uint8_t *data;
	struct ehp e;
	size_t cap = 0, k = 0;
	int ret = 1;

	*out = NULL;
	*n = 0;
	if (utrace_elf_find_section(elf, ".eh_frame", &sec) < 0 ||
	    !(data = utrace_elf_section_data(elf, &sec)))
		return 0;
	e = (struct ehp){data, data + sec.size, sec.vaddr, data};
	while (ret > 0 && e.p < e.end)
		ret = record(&e, out, n, &cap);
	if (ret < 0) {
		free(*out);
		*out = NULL;
		*n = 0;
		return ret;
	}
	if (!*n)
		return 0;
	qsort(*out, *n, sizeof(**out), range_cmp);
	for (size_t i = 0; i < *n; i++)
		if (!k || (*out)[k - 1].start != (*out)[i].start)
			(*out)[k++] = (*out)[i];
	*n = k;
	return 0;
}
