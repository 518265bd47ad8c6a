/* SPDX-License-Identifier: MIT */
/*
 * usdt.c - USDT probes from .note.stapsdt, and their uprobes (usdt.h).
 *
 * Design: the notes are read once into an array of sites whose strings
 * point into the mapped file, which the list keeps open (its symbols are
 * needed later for %rip-relative arguments).  Addresses are corrected
 * for prelink as systemtap does: if the file has a .stapsdt.base section,
 * pc and semaphore move by (its address now - the address in the note).
 * Both then become file offsets through their PT_LOAD segment
 * (lib/probes/uprobe_elf.c): the uprobe's offset and its ref_ctr_offset.
 *
 * An argument "[-]SIZE@OPERAND" is the operand gcc chose for the asm
 * constraint "nor" (AT&T syntax, x86-64 only):
 *
 *   %edi, %r8d, %al        a register of any width -> %di, %r8, %ax
 *   %ah (a high byte)      %ax:b8@8/16
 *   $5, $-1                an immediate -> \5, \-1
 *   -12(%rbp), (%rax)      base + displacement -> -12(%bp), +0(%ax)
 *   sym(%rip), sym+8(%rip) a global -> @+OFFSET (below)
 *   0x10(%rip)             relative to the next instruction (pc + 1, the
 *                          probe's one-byte NOP, which is checked)
 *   sym, 0x601040          an absolute address -> @+OFFSET
 *
 * The kernel reads @+OFFSET at (probe address - probe file offset +
 * OFFSET), so OFFSET = target vaddr - (pc - pc's file offset).  SIZE
 * gives the type: -4 is s32, 8 is u64.  Segments and vector registers
 * cannot be fetched by a uprobe: such an argument is an error naming it.
 * Nor can an index register, base + index * scale + displacement
 *
 *   -88(%rsp,%rax,8), (,%rdx,4)   -> -88(%sp,%ax,8), +0(,%dx,4)
 *
 * which only an in-process probe's fetch program computes
 * (utrace_usdt_fetchargs_in_process; common/fetch_prog.h INDEX).
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/grow.h"
#include "lib/probes/uprobe_internal.h"
#include "lib/probes/usdt.h"

#define NT_STAPSDT 3

struct utrace_usdt_list {
	char *path;
	struct upr_file file;
	struct utrace_usdt_probe *sites;
	size_t n, cap;
};

/* x86-64 register names of any width -> the kernel's pt_regs name. */
static const struct {
	const char *name, *kernel;
	unsigned size;
	bool high; /* %ah ... */
} x86_regs[] = {
    {"rax", "ax", 8, 0}, {"eax", "ax", 4, 0}, {"ax", "ax", 2, 0},  {"al", "ax", 1, 0},
    {"ah", "ax", 1, 1},	 {"rbx", "bx", 8, 0}, {"ebx", "bx", 4, 0}, {"bx", "bx", 2, 0},
    {"bl", "bx", 1, 0},	 {"bh", "bx", 1, 1},  {"rcx", "cx", 8, 0}, {"ecx", "cx", 4, 0},
    {"cx", "cx", 2, 0},	 {"cl", "cx", 1, 0},  {"ch", "cx", 1, 1},  {"rdx", "dx", 8, 0},
    {"edx", "dx", 4, 0}, {"dx", "dx", 2, 0},  {"dl", "dx", 1, 0},  {"dh", "dx", 1, 1},
    {"rsi", "si", 8, 0}, {"esi", "si", 4, 0}, {"si", "si", 2, 0},  {"sil", "si", 1, 0},
    {"rdi", "di", 8, 0}, {"edi", "di", 4, 0}, {"di", "di", 2, 0},  {"dil", "di", 1, 0},
    {"rbp", "bp", 8, 0}, {"ebp", "bp", 4, 0}, {"bp", "bp", 2, 0},  {"bpl", "bp", 1, 0},
    {"rsp", "sp", 8, 0}, {"esp", "sp", 4, 0}, {"sp", "sp", 2, 0},  {"spl", "sp", 1, 0},
    {"rip", "ip", 8, 0},
};

/* %rN, %rNd, %rNw, %rNb (N = 8..15) or a table name; its kernel name. */
static const char *x86_reg(const char *name, size_t len, bool *high)
{
	static char rn[4];
	unsigned n = 0;
	size_t i = 1;

	*high = false;
	for (size_t r = 0; r < sizeof(x86_regs) / sizeof(x86_regs[0]); r++) {
		if (strlen(x86_regs[r].name) == len && !strncmp(x86_regs[r].name, name, len)) {
			*high = x86_regs[r].high;
			return x86_regs[r].kernel;
		}
	}
	if (len < 2 || name[0] != 'r')
		return NULL;
	while (i < len && name[i] >= '0' && name[i] <= '9')
		n = n * 10 + (unsigned)(name[i++] - '0');
	if (i == 1 || n < 8 || n > 15 || (i < len && (i + 1 != len || !strchr("dwb", name[i]))))
		return NULL;
	snprintf(rn, sizeof(rn), "r%u", n);
	return rn;
}

static int add_site(struct utrace_usdt_list *l, const struct utrace_usdt_probe *s)
{
	if (UTRACE_GROW(l->sites, l->cap, l->n + 1) < 0)
		return -ENOMEM;
	l->sites[l->n++] = *s;
	return 0;
}

/* The notes of one SHT_NOTE section. */
static int read_notes(struct utrace_usdt_list *l, const struct utrace_elf_section *sec,
		      const struct utrace_elf_section *base, bool have_base,
		      struct utrace_error *err)
{
	const char *data = utrace_elf_section_data(l->file.elf, sec);
	uint64_t pos = 0;

	if (!data)
		return utrace_error_set(err, -ENOEXEC, "%s: .note.stapsdt beyond end of file",
					l->path);
	while (pos + 12 <= sec->size) {
		uint32_t h[3]; /* namesz, descsz, type */
		uint64_t name, desc, next, addr[3];
		struct utrace_usdt_probe s = {0};
		const char *str, *end;

		memcpy(h, data + pos, sizeof(h));
		name = pos + 12;
		desc = name + ((h[0] + 3ull) & ~3ull);
		next = desc + ((h[1] + 3ull) & ~3ull);
		if (next > sec->size || desc + h[1] > sec->size)
			return utrace_error_set(err, -ENOEXEC,
						"%s: note at 0x%" PRIx64
						" of .note.stapsdt is cut short",
						l->path, pos);
		pos = next;
		if (h[2] != NT_STAPSDT || h[0] != 8 || memcmp(data + name, "stapsdt", 8) ||
		    h[1] < sizeof(addr) + 3)
			continue;
		memcpy(addr, data + desc, sizeof(addr));
		str = data + desc + sizeof(addr);
		end = data + desc + h[1];
		s.provider = str;
		s.name = memchr(s.provider, 0, (size_t)(end - s.provider));
		if (s.name)
			s.name++;
		s.args = s.name ? memchr(s.name, 0, (size_t)(end - s.name)) : NULL;
		if (s.args)
			s.args++;
		if (!s.args || !memchr(s.args, 0, (size_t)(end - s.args)))
			return utrace_error_set(err, -ENOEXEC, "%s: malformed stapsdt note",
						l->path);
		s.pc = addr[0];
		s.semaphore = addr[2];
		if (have_base) { /* prelink moved the file: so much for the note's addresses */
			s.pc += base->vaddr - addr[1];
			if (s.semaphore)
				s.semaphore += base->vaddr - addr[1];
		}
		if (upr_vaddr_to_offset(&l->file, s.pc, &s.offset) < 0)
			return utrace_error_set(
			    err, -ENOEXEC, "%s: %s:%s at 0x%" PRIx64 " is in no loaded segment",
			    l->path, s.provider, s.name, s.pc);
		if (s.semaphore && upr_vaddr_to_offset(&l->file, s.semaphore, &s.sem_offset) < 0)
			s.sem_offset = 0; /* in .bss: the kernel cannot count it */
		if (add_site(l, &s) < 0)
			return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	return 0;
}

int utrace_usdt_load(const char *path, struct utrace_usdt_list **out, struct utrace_error *err)
{
	struct utrace_elf_section base = {0};
	struct utrace_usdt_list *l;
	const char *why = NULL;
	bool have_base;
	int ret;

	*out = NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	l->path = realpath(path, NULL);
	/* /proc/PID/root/...: another mount namespace's file, which realpath
	 * resolves in ours (the link reads "/"); opened as it is */
	if (!l->path && !strncmp(path, "/proc/", 6) && access(path, R_OK) == 0)
		l->path = strdup(path);
	if (!l->path) {
		ret = utrace_error_set(err, -errno, "%s: %s", path, strerror(errno));
		free(l);
		return ret;
	}
	ret = upr_file_open(l->path, &l->file, &why);
	if (ret < 0) {
		utrace_error_set(err, ret, "%s: %s", path, why ? why : strerror(-ret));
		utrace_usdt_free(l);
		return ret;
	}
	have_base = utrace_elf_find_section(l->file.elf, ".stapsdt.base", &base) == 0;
	for (size_t i = 0; i < utrace_elf_section_count(l->file.elf); i++) {
		struct utrace_elf_section sec;
		const char *name;

		if (utrace_elf_section(l->file.elf, i, &sec, &name) < 0 || sec.type != SHT_NOTE ||
		    strcmp(name, ".note.stapsdt"))
			continue;
		ret = read_notes(l, &sec, &base, have_base, err);
		if (ret < 0) {
			utrace_usdt_free(l);
			return ret;
		}
	}
	*out = l;
	return 0;
}

void utrace_usdt_free(struct utrace_usdt_list *l)
{
	if (!l)
		return;
	upr_file_close(&l->file);
	free(l->sites);
	free(l->path);
	free(l);
}

const char *utrace_usdt_path(const struct utrace_usdt_list *l)
{
	return l->path;
}

size_t utrace_usdt_count(const struct utrace_usdt_list *l)
{
	return l->n;
}

const struct utrace_usdt_probe *utrace_usdt_get(const struct utrace_usdt_list *l, size_t i)
{
	return i < l->n ? &l->sites[i] : NULL;
}

/* The vaddr of SYM[+|-N] or of a number; false if neither. */
static bool symbolic(const struct utrace_usdt_list *l, const char *s, size_t len, uint64_t *vaddr)
{
	char buf[256], *op;
	uint64_t size;
	int64_t off = 0;

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	if (upr_strtol(buf, 0, &off)) {
		*vaddr = (uint64_t)off;
		return true;
	}
	op = strpbrk(buf, "+-");
	if (op) {
		if (!upr_strtol(op[0] == '+' ? op + 1 : op, 0, &off))
			return false;
		*op = 0;
	}
	if (upr_find_symbol(&l->file, buf, false, vaddr, &size) != 1)
		return false;
	*vaddr += (uint64_t)off;
	return true;
}

/* DISP(%BASE,%INDEX,SCALE) (op .. rp, the base may be left out) into an
 * in-process fetch "+DISP(%base,%index,SCALE)"; NULL or why not. */
static const char *translate_index(const char *op, const char *lp, const char *rp, bool inproc,
				   char *fetch, size_t size)
{
	const char *c1 = memchr(lp, ',', (size_t)(rp - lp)), *c2, *base = "";
	char num[64], idx[8];
	int64_t disp = 0, scale = 1;
	bool high;

	if (!inproc)
		return "an index register, which a kernel uprobe cannot fetch";
	if (c1 > lp + 1 && !(base = x86_reg(lp + 2, (size_t)(c1 - lp - 2), &high)))
		return "not a general-purpose register";
	if (*base && (high || !strcmp(base, "ip")))
		return "bad base register";
	snprintf(num, sizeof(num), "%s", base); /* x86_reg's buffer is static */
	c2 = memchr(c1 + 1, ',', (size_t)(rp - c1 - 1));
	if (c1[1] != '%' || !(base = x86_reg(c1 + 2, (size_t)((c2 ? c2 : rp) - c1 - 2), &high)) ||
	    high || !strcmp(base, "ip") || !strcmp(base, "sp"))
		return "bad index register";
	snprintf(idx, sizeof(idx), "%s", base);
	if (c2) {
		char sc[16];

		snprintf(sc, sizeof(sc), "%.*s", (int)(rp - c2 - 1), c2 + 1);
		if (!upr_strtol(sc, 0, &scale) ||
		    (scale != 1 && scale != 2 && scale != 4 && scale != 8))
			return "bad scale";
	}
	if (lp > op) {
		char d[64];

		snprintf(d, sizeof(d), "%.*s", (int)(lp - op), op);
		if (!upr_strtol(d, 0, &disp))
			return "symbolic displacement";
	}
	snprintf(fetch, size, "%s%" PRId64 "(%s%s,%%%s,%" PRId64 ")", disp < 0 ? "" : "+", disp,
		 *num ? "%" : "", num, idx, scale);
	return NULL;
}

/* One "[-]SIZE@OPERAND" into "argN=FETCH:TYPE" (inproc: an in-process
 * probe's, which takes an index register); NULL or why not. */
static const char *translate(const struct utrace_usdt_list *l, const struct utrace_usdt_probe *s,
			     const char *spec, size_t len, unsigned n, bool inproc, char *out,
			     size_t size)
{
	const char *at = memchr(spec, '@', len), *op, *end = spec + len, *lp, *reg;
	char type[16], fetch[128];
	long bytes = 8;
	uint64_t target;
	bool high;

	if (at) {
		char *e;

		bytes = strtol(spec, &e, 10);
		if (e != at) /* "8f@%xmm0": a floating-point argument */
			return "not an integer argument";
	}
	if (bytes != 1 && bytes != -1 && bytes != 2 && bytes != -2 && bytes != 4 && bytes != -4 &&
	    bytes != 8 && bytes != -8)
		return "bad size";
	op = at ? at + 1 : spec;
	snprintf(type, sizeof(type), "%c%d", bytes < 0 ? 's' : 'u',
		 (int)(bytes < 0 ? -bytes : bytes) * 8);
	if (op == end)
		return "no operand";
	lp = memchr(op, '(', (size_t)(end - op));
	if (memchr(op, ':', (size_t)(end - op)))
		return "a segment cannot be fetched";
	if (*op == '%') {
		reg = x86_reg(op + 1, (size_t)(end - op - 1), &high);
		if (!reg)
			return "not a general-purpose register";
		if (high)
			snprintf(type, sizeof(type), "b8@8/16");
		snprintf(fetch, sizeof(fetch), "%%%s", reg);
	} else if (*op == '$') {
		int64_t imm;
		char num[64];

		snprintf(num, sizeof(num), "%.*s", (int)(end - op - 1), op + 1);
		if (!upr_strtol(num, 0, &imm))
			return "not a numeric immediate";
		snprintf(fetch, sizeof(fetch), "\\%" PRId64, imm);
	} else if (lp) {
		const char *rp = memchr(lp, ')', (size_t)(end - lp));
		int64_t disp = 0;

		if (!rp || rp + 1 != end || (lp[1] != '%' && lp[1] != ','))
			return "bad memory operand";
		if (memchr(lp, ',', (size_t)(rp - lp))) {
			const char *why = translate_index(op, lp, rp, inproc, fetch, sizeof(fetch));

			if (why)
				return why;
			goto done;
		}
		reg = x86_reg(lp + 2, (size_t)(rp - lp - 2), &high);
		if (!reg || high)
			return "not a general-purpose register";
		if (!strcmp(reg, "ip")) {
			char num[64];

			snprintf(num, sizeof(num), "%.*s", (int)(lp - op), op);
			if (upr_strtol(num, 0, &disp)) {
				/* relative to the next instruction: only the one-byte NOP */
				const unsigned char *nop =
				    utrace_elf_data(l->file.elf, s->offset, 1);

				if (!nop || *nop != 0x90)
					return "%rip-relative, and the probe is not a one-byte NOP";
				target = s->pc + 1 + (uint64_t)disp;
			} else if (!symbolic(l, op, (size_t)(lp - op), &target)) {
				return "unknown symbol";
			}
			goto absolute;
		}
		if (lp > op) {
			char num[64];

			snprintf(num, sizeof(num), "%.*s", (int)(lp - op), op);
			if (!upr_strtol(num, 0, &disp))
				return "symbolic displacement";
		}
		snprintf(fetch, sizeof(fetch), "%s%" PRId64 "(%%%s)", disp < 0 ? "" : "+", disp,
			 reg);
	} else if (*op != '%' && symbolic(l, op, (size_t)(end - op), &target)) {
		goto absolute;
	} else {
		return "unknown operand";
	}
	goto done;
absolute:
	target -= s->pc - s->offset;
	if ((int64_t)target < 0)
		snprintf(fetch, sizeof(fetch), "@+%" PRId64, (int64_t)target);
	else
		snprintf(fetch, sizeof(fetch), "@+0x%" PRIx64, target);
done:
	snprintf(out, size, "arg%u=%s:%s", n, fetch, type);
	return NULL;
}

static int fetchargs(const struct utrace_usdt_list *l, size_t i, bool inproc, char *buf,
		     size_t size, struct utrace_error *err)
{
	const struct utrace_usdt_probe *s = utrace_usdt_get(l, i);
	const char *p;
	size_t len = 0;
	unsigned n = 0;

	if (!s)
		return utrace_error_set(err, -EINVAL, "no USDT site %zu in %s", i, l->path);
	if (size)
		buf[0] = 0;
	for (p = s->args; *p;) {
		size_t w;
		const char *why;
		char one[192];

		if (*p == ' ') {
			p++;
			continue;
		}
		w = strcspn(p, " ");
		why = translate(l, s, p, w, ++n, inproc, one, sizeof(one));
		if (why)
			return utrace_error_set(err, -EINVAL, "%s:%s: argument %u '%.*s': %s",
						s->provider, s->name, n, (int)w, p, why);
		len += (size_t)snprintf(buf ? buf + (len < size ? len : size) : NULL, /* NULL: a measure */
					len < size ? size - len : 0, "%s%s", n > 1 ? " " : "", one);
		p += w;
	}
	return (int)len;
}

int utrace_usdt_fetchargs(const struct utrace_usdt_list *l, size_t i, char *buf, size_t size,
			  struct utrace_error *err)
{
	return fetchargs(l, i, false, buf, size, err);
}

int utrace_usdt_fetchargs_in_process(const struct utrace_usdt_list *l, size_t i, char *buf,
				     size_t size, struct utrace_error *err)
{
	return fetchargs(l, i, true, buf, size, err);
}

int utrace_usdt_to_uprobe(const struct utrace_usdt_list *l, size_t i, const char *group,
			  const char *event, struct utrace_uprobe **out, struct utrace_error *err)
{
	const struct utrace_usdt_probe *s = utrace_usdt_get(l, i);
	char name[UTRACE_UPROBE_NAME_MAX + 1], *def = NULL, *args;
	int len, ret;

	*out = NULL;
	if (!s)
		return utrace_error_set(err, -EINVAL, "no USDT site %zu in %s", i, l->path);
	if (s->semaphore && !s->sem_offset)
		return utrace_error_set(err, -EINVAL,
					"%s:%s: the semaphore at 0x%" PRIx64 " is not in the file",
					s->provider, s->name, s->semaphore);
	if (strpbrk(l->path, " \t\n"))
		return utrace_error_set(err, -EINVAL, "%s: uprobe_events takes no blank in a path",
					l->path);
	snprintf(name, sizeof(name), "%s%s", s->name[0] >= '0' && s->name[0] <= '9' ? "_" : "",
		 s->name);
	for (char *c = name; *c; c++)
		if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
		      (*c >= '0' && *c <= '9')))
			*c = '_';
	len = utrace_usdt_fetchargs(l, i, NULL, 0, err);
	if (len < 0)
		return len;
	args = malloc((size_t)len + 1);
	if (!args)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	utrace_usdt_fetchargs(l, i, args, (size_t)len + 1, err);
	if (s->sem_offset)
		ret = asprintf(&def, "p:%s/%s %s:0x%" PRIx64 "(0x%" PRIx64 ") %s",
			       UTRACE_USDT_DEFAULT_GROUP, name, l->path, s->offset, s->sem_offset,
			       args);
	else
		ret = asprintf(&def, "p:%s/%s %s:0x%" PRIx64 " %s", UTRACE_USDT_DEFAULT_GROUP, name,
			       l->path, s->offset, args);
	free(args);
	if (ret < 0)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	ret = utrace_uprobe_parse(def, out, err);
	if (ret == 0 && (group || event)) {
		ret = utrace_uprobe_set_name(*out, group, event, err);
		if (ret < 0) {
			utrace_uprobe_free(*out);
			*out = NULL;
		}
	}
	if (ret < 0 && err) {
		char msg[sizeof(err->msg)];
		int n = snprintf(msg, sizeof(msg), "%s:%s: ", s->provider, s->name);

		if (n > 0 && (size_t)n < sizeof(msg))
			snprintf(msg + n, sizeof(msg) - (size_t)n, "%.*s",
				 (int)(sizeof(msg) - (size_t)n - 1), err->msg);
		memcpy(err->msg, msg, sizeof(msg));
		err->column = 0;
	}
	free(def);
	return ret;
}
