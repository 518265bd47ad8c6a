/* SPDX-License-Identifier: MIT */
/*
 * graph_args.c - funcgraph-args and funcgraph-retval text (API in
 * lib/report/graph_args.h).
 *
 * Design: the recording holds raw registers only (six argument registers
 * at an ENTRY, rax at an EXIT: common/record.h); what they mean comes from
 * the DWARF of the function's file, read when the report needs it, as the
 * kernel reads BTF when it prints.  The System V classification decides
 * which register holds which parameter: integers, pointers, enums and
 * aggregates of up to 16 bytes take the next one or two integer
 * registers; floating-point parameters and larger aggregates take none
 * (they are in xmm registers or memory, which are not recorded).
 * Signatures are cached by (file, call-site address), files' DWARF by
 * path, so a report opens each file once.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/probes/dwarf.h"
#include "lib/report/graph_args.h"

#define SIG_BUCKETS 1024

struct sig_entry {
	const char *path; /* the recording's string */
	uint64_t vaddr;
	bool ok;
	struct utrace_dwarf_sig sig;
	struct sig_entry *next;
};

struct dw_file {
	char *path;
	struct utrace_dwarf *dw; /* NULL: no DWARF */
	struct dw_file *next;
};

struct utrace_graph_args {
	struct utrace_dat *d;
	struct sig_entry *bucket[SIG_BUCKETS];
	struct dw_file *files;
};

struct utrace_graph_args *utrace_graph_args_new(struct utrace_dat *d)
{
	struct utrace_graph_args *g = calloc(1, sizeof(*g));

	if (g)
		g->d = d;
	return g;
}

void utrace_graph_args_free(struct utrace_graph_args *g)
{
	if (!g)
		return;
	for (unsigned i = 0; i < SIG_BUCKETS; i++)
		while (g->bucket[i]) {
			struct sig_entry *e = g->bucket[i];

			g->bucket[i] = e->next;
			free(e);
		}
	while (g->files) {
		struct dw_file *f = g->files;

		g->files = f->next;
		utrace_dwarf_close(f->dw);
		free(f->path);
		free(f);
	}
	free(g);
}

static struct utrace_dwarf *file_dwarf(struct utrace_graph_args *g, const char *path)
{
	struct utrace_error err;
	struct dw_file *f;

	for (f = g->files; f; f = f->next)
		if (!strcmp(f->path, path))
			return f->dw;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	if (utrace_dwarf_open(path, &f->dw, &err) < 0)
		f->dw = NULL;
	f->next = g->files;
	g->files = f;
	return f->dw;
}

/* The signature of ev's function, NULL if unknown. */
static const struct utrace_dwarf_sig *event_sig(struct utrace_graph_args *g,
						const struct utrace_event *ev)
{
	struct utrace_dwarf *dw;
	struct sig_entry *e;
	const char *path;
	uint64_t vaddr;
	unsigned h;

	if (!g || utrace_dat_func_site(g->d, ev->image, ev->id, &path, &vaddr) < 0)
		return NULL;
	h = (unsigned)((vaddr ^ (uintptr_t)path) * 0x9e3779b1u) % SIG_BUCKETS;
	for (e = g->bucket[h]; e; e = e->next)
		if (e->path == path && e->vaddr == vaddr)
			return e->ok ? &e->sig : NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->path = path;
	e->vaddr = vaddr;
	dw = file_dwarf(g, path);
	e->ok = dw && utrace_dwarf_func_sig(dw, vaddr, &e->sig) == 0;
	e->next = g->bucket[h];
	g->bucket[h] = e;
	return e->ok ? &e->sig : NULL;
}

/* v truncated to size bytes; sign-extended if sign. */
static uint64_t trunc_val(uint64_t v, unsigned size, bool sign)
{
	unsigned bits = size * 8;

	if (!size || bits >= 64)
		return v;
	v &= (1ull << bits) - 1;
	if (sign && (v >> (bits - 1)))
		v |= ~((1ull << bits) - 1);
	return v;
}

#define PUT(...)                                                                                   \
	do {                                                                                       \
		int n_ = snprintf(buf + len, len < size ? size - len : 0, __VA_ARGS__);            \
		len += n_ > 0 ? (size_t)n_ : 0;                                                    \
		if (len >= size)                                                                   \
			len = size - 1;                                                            \
	} while (0)

void utrace_graph_args_format(struct utrace_graph_args *g, const struct utrace_event *ev, char *buf,
			      size_t size)
{
	const struct utrace_dwarf_sig *sig = ev->has_args ? event_sig(g, ev) : NULL;
	unsigned reg = 0;
	size_t len = 0;

	buf[0] = 0;
	PUT("(");
	/* a result returned in memory: its address comes first, in %rdi */
	if (sig && sig->ret_kind == 'a' && sig->ret_size > 16)
		reg = 1;
	for (unsigned i = 0; sig && i < sig->nparams; i++) {
		char k = sig->param[i].kind;
		unsigned sz = sig->param[i].size, words = k == 'a' ? (sz + 7) / 8 : 1;
		bool in_reg = !(k == 'f' || (k == 'a' && (sz > 16 || !sz)));
		uint64_t v;

		PUT("%s", i ? ", " : "");
		if (in_reg && reg + words > ev->nargs) {
			PUT("..."); /* the kernel's: only what the six registers hold */
			break;
		}
		if (sig->param[i].name[0])
			PUT("%s=", sig->param[i].name);
		if (!in_reg) {
			PUT("?"); /* in an xmm register or in memory */
			continue;
		}
		v = ev->args[reg];
		if (k == 's' || k == 'e')
			PUT("%" PRId64, (int64_t)trunc_val(v, sz, true));
		else if (k == 'u' || k == 'b')
			PUT("%" PRIu64, trunc_val(v, sz, false));
		else if (k == 'p')
			PUT("0x%" PRIx64, v);
		else if (k == 'a') {
			PUT("(%s)[0x%" PRIx64, "struct", v);
			if (words > 1)
				PUT(":0x%" PRIx64, ev->args[reg + 1]);
			PUT("]");
		} else {
			PUT("?0x%" PRIx64, v);
		}
		reg += words;
	}
	PUT(")");
}

void utrace_graph_retval_format(struct utrace_graph_args *g, const struct utrace_event *ev,
				bool hex, char *buf, size_t size)
{
	const struct utrace_dwarf_sig *sig = ev->has_retval ? event_sig(g, ev) : NULL;
	char k = sig ? sig->ret_kind : '?';
	unsigned sz = sig ? sig->ret_size : 8;
	uint64_t v = ev->retval;
	size_t len = 0;

	buf[0] = 0;
	if (!ev->has_retval || k == 'v' || k == 'f')
		return;
	if (k == '?' && !hex) { /* untyped: print_graph_retval()'s error codes */
		int64_t e = v & 1ull << 31 && !(v >> 32) ? (int32_t)v : (int64_t)v;

		if (e < 0 && e >= -4095) { /* IS_ERR_VALUE */
			PUT(" = %" PRId64, e);
			return;
		}
	}
	if (k == 'b' && !hex)
		PUT(" = %s", v & 1 ? "true" : "false");
	else if ((k == 's' || k == 'e') && !hex)
		PUT(" = %" PRId64 "%s", (int64_t)trunc_val(v, sz, true), sz > 8 ? "(trunc)" : "");
	else
		PUT(" = 0x%" PRIx64 "%s", trunc_val(v, sz > 8 ? 8 : sz, false),
		    sz > 8 ? "(trunc)" : "");
}
