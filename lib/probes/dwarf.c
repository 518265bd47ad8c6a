/* SPDX-License-Identifier: MIT */
/*
 * dwarf.c - a file's debug information for probes: where a function, a
 * source line and a variable are at a given address (API in
 * lib/probes/dwarf.h).
 *
 * Design: the file is reported to libdwfl as an offline module, so that
 * libdwfl finds its DWARF where it is (the file itself, a .debug file by
 * build-id or debuglink, or debuginfod when DEBUGINFOD_URLS is set: all of
 * it libdwfl's own look-up).  Addresses are the file's link-time vaddrs
 * throughout; the module's bias only converts for the CFI.
 *
 * A variable's location is DWARF's expression valid at the probe address
 * (the one entry of a location list covering it: none means it is
 * optimised out there).  The forms a probe can fetch are those perf probe
 * converts: a register (DW_OP_regN: its value), a register plus an offset
 * (DW_OP_bregN: memory), the frame base plus an offset (DW_OP_fbreg, the
 * frame base being a register, or the CFA, which the CFI at that address
 * gives as register + offset) and a static address (DW_OP_addr: the symbol
 * that holds it).  Anything computed (DW_OP_stack_value, pieces, entry
 * values) is refused rather than guessed.
 */
#include <dwarf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/probes/dwarf_internal.h"

#define DWARF_ERR_TEXT(name, text) text,
static const char *const err_text[] = {"No error", UTRACE_DWARF_ERRORS(DWARF_ERR_TEXT)};
#undef DWARF_ERR_TEXT

const char *utrace_dwarf_error_text(int code)
{
	return code >= 0 && code < (int)(sizeof(err_text) / sizeof(err_text[0])) ? err_text[code]
										 : "Unknown error";
}

int dw_fail(struct utrace_error *err, int code, int column, const char *fmt, ...)
{
	char detail[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	if (column > 0)
		utrace_error_set(err, -EINVAL, "%s at column %d%s%s", utrace_dwarf_error_text(code),
				 column, detail[0] ? ": " : "", detail);
	else
		utrace_error_set(err, -EINVAL, "%s%s%s", utrace_dwarf_error_text(code),
				 detail[0] ? ": " : "", detail);
	if (err)
		err->column = column;
	return -EINVAL;
}

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo, /* debuginfod too */
    .section_address = dwfl_offline_section_address,
};

int utrace_dwarf_open(const char *path, struct utrace_dwarf **out, struct utrace_error *err)
{
	struct utrace_dwarf *d = calloc(1, sizeof(*d));
	Dwarf_Addr bias;

	*out = NULL;
	if (!d || !(d->path = strdup(path))) {
		free(d);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	if (access(path, R_OK) < 0) {
		utrace_dwarf_close(d);
		return utrace_error_set(err, -ENOENT, "%s: %s", path, strerror(errno));
	}
	d->dwfl = dwfl_begin(&offline_callbacks);
	if (d->dwfl)
		d->mod = dwfl_report_offline(d->dwfl, "", path, -1);
	if (!d->mod || dwfl_report_end(d->dwfl, NULL, NULL) != 0) {
		utrace_error_set(err, -ENOEXEC, "%s: %s", path, dwfl_errmsg(-1));
		utrace_dwarf_close(d);
		return -ENOEXEC;
	}
	d->dw = dwfl_module_getdwarf(d->mod, &d->bias);
	if (!d->dw) {
		utrace_dwarf_close(d);
		dw_fail(err, UTRACE_DWARF_ERR_NO_DEBUGINFO, 0, "%s (build it with -g)", path);
		return err ? (err->code = -ENODATA) : -ENODATA;
	}
	d->cfi = dwfl_module_eh_cfi(d->mod, &bias);
	if (!d->cfi)
		d->cfi = dwfl_module_dwarf_cfi(d->mod, &bias);
	*out = d;
	return 0;
}

void utrace_dwarf_close(struct utrace_dwarf *d)
{
	if (!d)
		return;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d->path);
	free(d);
}

int dw_scopes(struct utrace_dwarf *d, uint64_t addr, Dwarf_Die **scopes)
{
	Dwarf_Off off = 0, next;
	Dwarf_Die cu0;
	size_t hsize;

	*scopes = NULL;
	/* .debug_aranges first (gcc's), then each unit's own ranges: clang
	 * writes no .debug_aranges, and libdw 0.188 reads no DWARF 5 addrx
	 * low_pc without them */
	if (dwarf_addrdie(d->dw, addr, &cu0) && dwarf_haspc(&cu0, addr) == 1)
		return dwarf_getscopes(&cu0, addr, scopes);
	while (dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(d->dw, off + hsize, &cu) && dwarf_haspc(&cu, addr) == 1)
			return dwarf_getscopes(&cu, addr, scopes);
		off = next;
	}
	return 0;
}

Dwarf_Die *dw_scope_func(Dwarf_Die *scopes, int n)
{
	for (int i = 0; i < n; i++)
		if (dwarf_tag(&scopes[i]) == DW_TAG_subprogram)
			return &scopes[i];
	return NULL;
}

struct find_func {
	const char *name;
	Dwarf_Die *out;
	bool found;
};

static int find_func_cb(Dwarf_Die *die, void *arg)
{
	struct find_func *ff = arg;
	const char *name = dwarf_diename(die);
	Dwarf_Addr pc;

	if (!name || strcmp(name, ff->name) || dwarf_entrypc(die, &pc) != 0)
		return DWARF_CB_OK;
	*ff->out = *die;
	ff->found = true;
	return DWARF_CB_ABORT;
}

int dw_find_func(struct utrace_dwarf *d, const char *name, Dwarf_Die *func)
{
	struct find_func ff = {.name = name, .out = func};
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (!ff.found && dwarf_nextcu(d->dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(d->dw, off + hsize, &cu))
			dwarf_getfuncs(&cu, find_func_cb, &ff, 0);
		off = next;
	}
	return ff.found ? 0 : -ENOENT;
}

/* DWARF x86-64 register numbers to the kernel's pt_regs names. */
static const char *reg_name(unsigned r)
{
	static const char *const names[] = {"ax", "dx", "cx",  "bx",  "si",  "di",  "bp",  "sp",
					    "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15"};

	return r < sizeof(names) / sizeof(names[0]) ? names[r] : NULL;
}

/* DW_OP_bregN off / DW_OP_regN as a register and offset. */
static bool op_reg(const Dwarf_Op *op, unsigned *reg, int64_t *off, bool *breg)
{
	*off = 0;
	*breg = false;
	if (op->atom >= DW_OP_reg0 && op->atom <= DW_OP_reg31) {
		*reg = op->atom - DW_OP_reg0;
	} else if (op->atom == DW_OP_regx) {
		*reg = (unsigned)op->number;
	} else if (op->atom >= DW_OP_breg0 && op->atom <= DW_OP_breg31) {
		*reg = op->atom - DW_OP_breg0;
		*off = (int64_t)op->number;
		*breg = true;
	} else if (op->atom == DW_OP_bregx) {
		*reg = (unsigned)op->number;
		*off = (int64_t)op->number2;
		*breg = true;
	} else {
		return false;
	}
	return reg_name(*reg) != NULL;
}

/* The frame base of func at addr, as register + offset. */
static int frame_base(struct utrace_dwarf *d, Dwarf_Die *func, uint64_t addr, unsigned *reg,
		      int64_t *off)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	bool breg;

	if (!func || !dwarf_attr_integrate(func, DW_AT_frame_base, &attr))
		return UTRACE_DWARF_ERR_LOC_UNSUPPORTED;
	if (dwarf_getlocation_addr(&attr, addr, &ops, &nops, 1) != 1 || nops != 1)
		return UTRACE_DWARF_ERR_OPTIMIZED_OUT;
	if (ops[0].atom == DW_OP_call_frame_cfa) {
		Dwarf_Frame *frame;
		int ret = UTRACE_DWARF_ERR_LOC_UNSUPPORTED;

		if (!d->cfi || dwarf_cfi_addrframe(d->cfi, addr, &frame) != 0)
			return ret;
		if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops == 1 &&
		    op_reg(&ops[0], reg, off, &breg) && breg)
			ret = 0;
		free(frame);
		return ret;
	}
	if (!op_reg(&ops[0], reg, off, &breg))
		return UTRACE_DWARF_ERR_LOC_UNSUPPORTED;
	return 0; /* DW_OP_regN: the register's value is the base, like bregN 0 */
}

/* A static address: the symbol holding it, "@SYM" + offset. */
static int static_location(struct utrace_dwarf *d, Dwarf_Addr a, struct dw_loc *loc)
{
	GElf_Off soff;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(d->mod, a + d->bias, &soff, &sym, NULL, NULL, NULL);

	if (!name || strlen(name) + 2 > sizeof(loc->base))
		return UTRACE_DWARF_ERR_LOC_UNSUPPORTED;
	loc->in_mem = true;
	snprintf(loc->base, sizeof(loc->base), "@%s", name);
	loc->off = (int64_t)soff;
	return 0;
}

/*
 * A parameter at its function's entry whose location list starts a few
 * bytes later: the entry's NOP sled (patchable entry, mcount) or
 * instructions that do not touch it.  perf probe takes the first location
 * of the function, as the parameter is still where the call put it.
 */
static int entry_location(Dwarf_Attribute *attr, Dwarf_Die *func, uint64_t addr, Dwarf_Op **ops,
			  size_t *nops)
{
	Dwarf_Addr entry, base, start, end, best = 0;
	Dwarf_Op *e;
	size_t n;
	ptrdiff_t off = 0;

	if (!func || dwarf_entrypc(func, &entry) != 0 || entry != addr)
		return 0;
	while ((off = dwarf_getlocations(attr, off, &base, &start, &end, &e, &n)) > 0)
		if (start > addr && (!best || start < best) && dwarf_haspc(func, start) == 1) {
			best = start;
			*ops = e;
			*nops = n;
		}
	return best ? 1 : 0;
}

int dw_var_location(struct utrace_dwarf *d, Dwarf_Die *var, Dwarf_Die *func, uint64_t addr,
		    struct dw_loc *loc)
{
	Dwarf_Attribute attr;
	Dwarf_Op *ops;
	size_t nops;
	unsigned reg;
	int64_t off, fboff;
	bool breg;
	int ret;

	memset(loc, 0, sizeof(*loc));
	if (!dwarf_attr_integrate(var, DW_AT_location, &attr))
		return UTRACE_DWARF_ERR_OPTIMIZED_OUT; /* const_value included: no storage */
	ret = dwarf_getlocation_addr(&attr, addr, &ops, &nops, 1);
	if (ret <= 0 && dwarf_tag(var) == DW_TAG_formal_parameter)
		ret = entry_location(&attr, func, addr, &ops, &nops);
	if (ret <= 0 || nops == 0)
		return UTRACE_DWARF_ERR_OPTIMIZED_OUT;
	if (nops != 1)
		return UTRACE_DWARF_ERR_LOC_UNSUPPORTED;
	if (ops[0].atom == DW_OP_addr)
		return static_location(d, ops[0].number, loc);
	if (ops[0].atom == DW_OP_addrx || ops[0].atom == DW_OP_GNU_addr_index) {
		Dwarf_Attribute res;
		Dwarf_Addr a;

		if (dwarf_getlocation_attr(&attr, &ops[0], &res) != 0 ||
		    dwarf_formaddr(&res, &a) != 0)
			return UTRACE_DWARF_ERR_LOC_UNSUPPORTED;
		return static_location(d, a, loc);
	}
	if (ops[0].atom == DW_OP_fbreg) {
		ret = frame_base(d, func, addr, &reg, &off);
		if (ret)
			return ret;
		fboff = (int64_t)ops[0].number;
		loc->in_mem = true;
		snprintf(loc->base, sizeof(loc->base), "%%%s", reg_name(reg));
		loc->off = off + fboff;
		return 0;
	}
	if (!op_reg(&ops[0], &reg, &off, &breg))
		return UTRACE_DWARF_ERR_LOC_UNSUPPORTED;
	loc->in_mem = breg;
	snprintf(loc->base, sizeof(loc->base), "%%%s", reg_name(reg));
	loc->off = off;
	return 0;
}

int dw_type_name(Dwarf_Die *die, char *buf, size_t size)
{
	Dwarf_Attribute attr;
	Dwarf_Die type;
	const char *prefix = "", *name;
	int tag;

	/* perf's __die_get_real_type(): qualifiers skipped, typedefs kept */
	do {
		if (!dwarf_attr_integrate(die, DW_AT_type, &attr) ||
		    !dwarf_formref_die(&attr, &type))
			return -ENOENT;
		die = &type;
		tag = dwarf_tag(die);
	} while (tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
		 tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type);
	if (tag == DW_TAG_array_type || tag == DW_TAG_pointer_type) {
		size_t len;

		if (dw_type_name(&type, buf, size) < 0)
			return -ENOENT;
		len = strlen(buf);
		snprintf(buf + len, size - len, "*");
		return 0;
	}
	if (tag == DW_TAG_subroutine_type) {
		snprintf(buf, size, "(function_type)");
		return 0;
	}
	name = dwarf_diename(&type);
	if (tag == DW_TAG_union_type)
		prefix = "union ";
	else if (tag == DW_TAG_structure_type)
		prefix = "struct ";
	else if (tag == DW_TAG_enumeration_type)
		prefix = "enum ";
	else if (!name)
		return -ENOENT;
	snprintf(buf, size, "%s%s", prefix, name ? name : "");
	return 0;
}

const char *dw_func_file(Dwarf_Die *func, char *buf, size_t size)
{
	const char *file = dwarf_decl_file(func);
	Dwarf_Attribute attr;
	Dwarf_Files *files;
	Dwarf_Word idx;
	Dwarf_Die cu;
	size_t n;

	if (!dwarf_diecu(func, &cu, NULL, NULL))
		return NULL;
	/* libdw 0.188 gives no name for DWARF 5's file 0 (clang's main file) */
	if (!file && dwarf_attr_integrate(func, DW_AT_decl_file, &attr) &&
	    dwarf_formudata(&attr, &idx) == 0 && dwarf_getsrcfiles(&cu, &files, &n) == 0 && idx < n)
		file = dwarf_filesrc(files, idx, NULL, NULL);
	return file ? dw_abs_path(&cu, file, buf, size) : NULL;
}

const char *dw_abs_path(Dwarf_Die *cu, const char *path, char *buf, size_t size)
{
	Dwarf_Attribute attr;
	const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));

	if (path[0] == '/' || !dir)
		snprintf(buf, size, "%s", path);
	else
		snprintf(buf, size, "%s/%s", dir, path);
	return buf;
}

/* Whether the compilation unit of die was optimised: perf's rule, some
 * variable there has a location list. */
static bool optimized_cu(Dwarf_Die *die)
{
	Dwarf_Die cu, child, stack[32];
	int depth = 0;

	if (!dwarf_diecu(die, &cu, NULL, NULL) || dwarf_child(&cu, &child) != 0)
		return false;
	stack[depth++] = child;
	while (depth) {
		Dwarf_Die cur = stack[--depth], sub;
		Dwarf_Attribute attr;
		int tag = dwarf_tag(&cur);

		if ((tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) &&
		    dwarf_attr(&cur, DW_AT_location, &attr) &&
		    (dwarf_whatform(&attr) == DW_FORM_sec_offset ||
		     dwarf_whatform(&attr) == DW_FORM_loclistx))
			return true;
		if (dwarf_siblingof(&cur, &sub) == 0)
			stack[depth++] = sub;
		if (depth < 32 && dwarf_child(&cur, &sub) == 0)
			stack[depth++] = sub;
	}
	return false;
}

int utrace_dwarf_skip_prologue(struct utrace_dwarf *d, uint64_t entry, uint64_t *vaddr)
{
	Dwarf_Die cu, *scopes = NULL, *func;
	Dwarf_Lines *lines;
	Dwarf_Addr lo, hi, a = 0;
	size_t nlines, i, first = (size_t)-1;
	int n, lno0 = 0, lno;
	bool pend;

	*vaddr = entry;
	n = dw_scopes(d, entry, &scopes);
	func = dw_scope_func(scopes, n);
	if (!func || optimized_cu(func) || dwarf_lowpc(func, &lo) != 0 || lo != entry ||
	    dwarf_highpc(func, &hi) != 0 || !dwarf_diecu(func, &cu, NULL, NULL) ||
	    dwarf_getsrclines(&cu, &lines, &nlines) != 0)
		goto out;
	/* the row at the entry; gcc -pg -mfentry starts the function's rows
	 * after its __fentry__ call (or NOP), so else the first one after */
	for (i = 0; i < nlines; i++) {
		Dwarf_Addr fa = 0;

		if (dwarf_lineaddr(dwarf_onesrcline(lines, i), &a) || a < entry || a >= hi)
			continue;
		if (first != (size_t)-1 &&
		    (dwarf_lineaddr(dwarf_onesrcline(lines, first), &fa) || fa <= a))
			continue;
		first = i;
	}
	if (first == (size_t)-1 || dwarf_lineno(dwarf_onesrcline(lines, first), &lno0) != 0)
		goto out;
	/* perf's get_postprologue_addr(): the prologue_end marker, else the
	 * next row of another line, else the second row */
	for (i = first; i < nlines; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);

		if (dwarf_lineaddr(l, &a) || dwarf_lineno(l, &lno) ||
		    dwarf_lineprologueend(l, &pend))
			goto out;
		if (a >= hi || pend || lno != lno0 || i != first)
			break;
	}
	if (a >= hi && i > first)
		dwarf_lineaddr(dwarf_onesrcline(lines, i - 1), &a);
	if (a > entry && a < hi)
		*vaddr = a;
out:
	free(scopes);
	return *vaddr != entry;
}
