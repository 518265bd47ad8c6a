/* SPDX-License-Identifier: MIT */
/*
 * event_print.c - renders static tracepoint records with their TP_printk,
 * the way trace-cmd does: the format texts saved in the trace file are
 * parsed by libtraceevent, and each record (the kernel's 8 bytes of common
 * fields put back in front) is printed with tep_print_event.  So "%s",
 * "%pS", __get_str(), __print_flags() and __print_symbolic() mean exactly
 * what they mean for kernel events.
 */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <traceevent/event-parse.h>
#include <traceevent/trace-seq.h>

#include "common/proto.h"
#include "lib/base/grow.h"
#include "lib/report/event_print.h"

struct utrace_event_printer {
	struct tep_handle *tep;
	uint8_t *rec;
	size_t cap;
	struct trace_seq seq;
	struct utrace_dat *d;
	uint32_t image; /* of the record being rendered: names its %pS */
	char sym[512];
};

/* %pS and %ps (a return probe's return address): the symbol of the
 * record's image.  For %ps the name carries the offset, as the kernel's
 * kretprobe line shows "(CALLER+0x1d <- FUNC)". */
static char *printer_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	struct utrace_event_printer *p = priv;
	uint64_t off = 0;
	const char *name = utrace_dat_addr_name(p->d, p->image, *addrp, &off);

	*modp = NULL;
	if (!name)
		return NULL;
	snprintf(p->sym, sizeof(p->sym), "%s+0x%llx", name, (unsigned long long)off);
	return p->sym;
}

void utrace_event_printer_set_image(struct utrace_event_printer *p, uint32_t image)
{
	p->image = image;
}

/* Skips a '...' or "..." literal at s (its quote); returns past it. */
static const char *skip_quoted(const char *s)
{
	char q = *s++;

	while (*s && *s != q && *s != '\n')
		s += s[0] == '\\' && s[1] ? 2 : 1;
	return *s == q ? s + 1 : s;
}

/*
 * libtraceevent folds "a / b" and "a % b" of two constants while parsing
 * a print fmt, an unknown word counting as 0, and divides by zero (SIGFPE)
 * for "1/0" or "x/y".  So a format whose print fmt divides by anything
 * but a non-zero number, a REC-> field or a sizeof() is not given to it
 * (its events print raw).  The kernel's formats divide only so.
 */
static bool divisions_ok(const char *text)
{
	const char *s = strstr(text, "\nprint fmt:");
	char *end;

	if (!s)
		return true;
	for (s += 11; *s && *s != '\n';) {
		if (*s == '"' || *s == '\'') {
			s = skip_quoted(s);
			continue;
		}
		if (*s != '/' && *s != '%') {
			s++;
			continue;
		}
		for (s++; *s == ' ' || *s == '\t' || *s == '('; s++)
			;
		if (!strncmp(s, "REC->", 5) || !strncmp(s, "sizeof", 6))
			continue;
		if (!isdigit((unsigned char)*s) || !strtoull(s, &end, 0))
			return false;
	}
	return true;
}

/*
 * A synthetic event's stack field prints as the kernel's
 * print_synth_event() does, "STACK:" and "=> SYMBOL+0xOFF" a frame, each
 * on a line of its own; libtraceevent does not know __get_stacktrace(),
 * so the print fmt gives it __utrace_stack(__get_dynamic_array(F),
 * __get_dynamic_array_len(F)) instead: the frames' address and bytes.
 * Print functions get no argument of ours, so the printer rendering is
 * the thread's `printing`.
 */
static __thread struct utrace_event_printer *printing;

static unsigned long long stack_print(struct trace_seq *s, unsigned long long *args)
{
	const uint8_t *at = (const uint8_t *)(uintptr_t)args[0];
	struct utrace_event_printer *p = printing;

	trace_seq_puts(s, "STACK:");
	for (unsigned long long i = 0; at && i + 8 <= args[1]; i += 8) {
		uint64_t pc, off = 0;
		const char *name;

		memcpy(&pc, at + i, 8);
		name = p ? utrace_dat_addr_name(p->d, p->image, pc, &off) : NULL;
		if (name)
			trace_seq_printf(s, "\n=> %s+0x%llx", name, (unsigned long long)off);
		else
			trace_seq_printf(s, "\n=> 0x%llx", (unsigned long long)pc);
	}
	return 0;
}

/*
 * A kprobe's print fmt is the kernel's "(%lx)", REC->__probe_ip, which
 * the kernel prints as the probed address's SYM+0xOFF/0xSIZE
 * (print_kprobe_event); an event may have several points (multiprobe).
 * So it is given to libtraceevent as "(%s)" of __utrace_loc(ip) (loc_print).
 */
static unsigned long long loc_print(struct trace_seq *s, unsigned long long *args)
{
	struct utrace_event_printer *p = printing;
	uint64_t off = 0, size = 0;
	const char *name = p ? utrace_dat_addr_sym(p->d, p->image, args[0], &off, &size) : NULL;

	if (!name)
		trace_seq_printf(s, "0x%llx", args[0]);
	else if (size)
		trace_seq_printf(s, "%s+0x%llx/0x%llx", name, (unsigned long long)off,
				 (unsigned long long)size);
	else
		trace_seq_printf(s, "%s+0x%llx", name, (unsigned long long)off);
	return 0;
}

/* text with a kprobe's "(%lx)", REC->__probe_ip made loc_print's, or
 * NULL: not one. */
static char *fmt_loc(const char *text)
{
	static const char head[] = "\nprint fmt: \"(%lx)", arg[] = "\", REC->__probe_ip";
	const char *f = strstr(text, head), *a = f ? strstr(f, arg) : NULL;
	char *out;

	if (!a || memchr(f + 1, '\n', (size_t)(a - f - 1)) ||
	    !(out = malloc(strlen(text) + sizeof("__utrace_loc()"))))
		return NULL;
	sprintf(out, "%.*s\nprint fmt: \"(%%s)%.*s\", __utrace_loc(REC->__probe_ip)%s",
		(int)(f - text), text, (int)(a - f - (sizeof(head) - 1)), f + sizeof(head) - 1,
		a + sizeof(arg) - 1);
	return out;
}

/* text with each __get_stacktrace(F) of its print fmt made the call of
 * stack_print, or NULL: none. */
static char *fmt_stack(const char *text)
{
	static const char get[] = "__get_stacktrace(";
	const char *f = strstr(text, "\nprint fmt:"), *s;
	size_t n = 0;
	char *out, *o;

	for (s = f; s && (s = strstr(s, get)); s += sizeof(get) - 1)
		n++;
	if (!n || !(out = malloc(strlen(text) + n * 128 + 1)))
		return NULL;
	o = out;
	for (s = text; (f = f ? strstr(f, get) : NULL); s = f) {
		const char *name = f + sizeof(get) - 1, *end = strchr(name, ')');

		if (!end || end - name > 60)
			break;
		memcpy(o, s, (size_t)(f - s));
		o += f - s;
		o += sprintf(o, "__utrace_stack(__get_dynamic_array(%.*s), __get_dynamic_array_len(%.*s))",
			     (int)(end - name), name, (int)(end - name), name);
		f = end + 1;
	}
	strcpy(o, s);
	return out;
}

/*
 * libtraceevent has no %c: it prints ">c<" for the conversion (the
 * kernel's kprobe :char type is "'%c'", char[N] "{'%c','%c',...}").  So
 * a print fmt with %c is given to it with each %c made %s and the
 * argument that conversion takes wrapped in __utrace_char(), a print
 * function (char_print) that writes the character.
 */
static unsigned long long char_print(struct trace_seq *s, unsigned long long *args)
{
	trace_seq_printf(s, "%c", (int)(unsigned char)args[0]);
	return 0;
}

static unsigned long long char_at_print(struct trace_seq *s, unsigned long long *args)
{
	const char *str = (const char *)(uintptr_t)args[0];

	trace_seq_printf(s, "%c", str && args[1] < strlen(str) ? str[args[1]] : '\0');
	return 0;
}

/*
 * A probe's string argument prints as the kernel's print_type_string: a
 * fetch that faulted stores a string of length 0 (the kernel's
 * set_data_loc; common/fetch_prog.h does the same), printed `(fault)`
 * without the quotes, any other "\"%s\"".  So a \"%s\" whose argument
 * is __get_str(X) is given to libtraceevent as %s of
 * __utrace_str(__get_str(X), __get_dynamic_array_len(X)) (str_print).
 */
static unsigned long long str_print(struct trace_seq *s, unsigned long long *args)
{
	const char *str = (const char *)(uintptr_t)args[0];

	if (!args[1])
		trace_seq_puts(s, "(fault)");
	else
		trace_seq_printf(s, "\"%s\"", str ? str : "");
	return 0;
}

/*
 * libtraceevent reads a field as an unsigned number of its size and a
 * cast to s8 or s16 masks it again, so a signed field narrower than an
 * int prints as unsigned (an s8 of -6: 250); the kernel's print prints
 * -6.  So the argument REC->NAME of a %d or %i, NAME a signed field of 1
 * or 2 bytes, is given as __utrace_s8(REC->NAME) or __utrace_s16(...), a
 * print function returning the value sign-extended.
 */
static unsigned long long s8_val(struct trace_seq *s, unsigned long long *args)
{
	(void)s;
	return (unsigned long long)(long long)(int8_t)args[0];
}

static unsigned long long s16_val(struct trace_seq *s, unsigned long long *args)
{
	(void)s;
	return (unsigned long long)(long long)(int16_t)args[0];
}

/* The arguments a print fmt's conversions take that are rewritten: a
 * %c's (bit i: argument i, the first 64), a \"%s\"'s and a %pS's (the
 * kernel prints SYM+0xOFF/0xSIZE, libtraceevent SYM+0xOFF: given as %s
 * of __utrace_loc(ARG), loc_print); and a %d's or %i's, whose argument
 * may be a narrow signed field (s8_val). */
struct fmt_masks {
	uint64_t chars, strs, syms, ints;
};

/* Copies the print fmt string at fmt (past its opening quote) to *o
 * with each %c, %pS and \"%s\" made %s; returns the argument
 * indexes of those and sets *end past the closing quote. */
static struct fmt_masks fmt_copy(const char *fmt, bool syms, char **o, const char **end)
{
	struct fmt_masks m = {0, 0, 0, 0};
	unsigned arg = 0;

	while (*fmt && *fmt != '"') {
		if (!strncmp(fmt, "\\\"%s\\\"", 6)) {
			if (arg < 64)
				m.strs |= 1ULL << arg;
			arg++;
			*o += sprintf(*o, "%%s");
			fmt += 6;
			continue;
		} else if (*fmt == '\\' && fmt[1]) {
			*(*o)++ = *fmt++;
		} else if (*fmt == '%' && fmt[1] == '%') {
			*(*o)++ = *fmt++;
		} else if (*fmt == '%') {
			for (*(*o)++ = *fmt++; *fmt && strchr("#0- +.123456789*lhzLtj", *fmt); fmt++)
				arg += *fmt == '*', *(*o)++ = *fmt;
			if (*fmt == 'c' && arg < 64)
				m.chars |= 1ULL << arg;
			if ((*fmt == 'd' || *fmt == 'i') && arg < 64)
				m.ints |= 1ULL << arg;
			if (syms && *fmt == 'p' && fmt[1] == 'S' && arg < 64) {
				m.syms |= 1ULL << arg;
				fmt++; /* the S: %pS made %s */
			}
			arg += *fmt != '\0';
			if (!*fmt)
				break;
			*(*o)++ = *fmt == 'c' || *fmt == 'S' ? 's' : *fmt;
			fmt++;
			continue;
		}
		*(*o)++ = *fmt++;
	}
	if (*fmt)
		*(*o)++ = *fmt++;
	*end = fmt;
	return m;
}

/* One argument of a print fmt, [s, e) without its spaces, as the %s of a
 * %c: __utrace_char(ARG), or __utrace_char_at(ARRAY, N) for ARRAY[N]
 * (libtraceevent takes no [N] in a function's argument). */
static char *char_arg(char *o, const char *s, const char *e)
{
	const char *br = e > s && e[-1] == ']' ? memrchr(s, '[', (size_t)(e - s)) : NULL;

	if (br)
		return o + sprintf(o, "__utrace_char_at(%.*s, %.*s)", (int)(br - s), s,
				   (int)(e - br - 2), br + 1);
	return o + sprintf(o, "__utrace_char(%.*s)", (int)(e - s), s);
}

/* The argument [s, e) of a \"%s\": __utrace_str(ARG, LEN), LEN the
 * length of a __get_str(X), else 1 (never a fault). */
static char *str_arg(char *o, const char *s, const char *e)
{
	int n = (int)(e - s);

	if (n >= 12 && !strncmp(s, "__get_str(", 10) && e[-1] == ')')
		return o + sprintf(o, "__utrace_str(%.*s, __get_dynamic_array_len(%.*s))", n, s,
				   n - 11, s + 10);
	return o + sprintf(o, "__utrace_str(%.*s, 1)", n, s);
}

/* 8 or 16 if [s, e) is REC->NAME and text's field NAME is signed, of 1 or
 * 2 bytes ("\tfield:TYPE NAME;\toffset:O;\tsize:N;\tsigned:1;"), else 0. */
static unsigned narrow_signed(const char *text, const char *s, const char *e)
{
	size_t n;

	if (e - s <= 5 || strncmp(s, "REC->", 5))
		return 0;
	s += 5;
	n = (size_t)(e - s);
	for (const char *f = strstr(text, "\tfield:"); f; f = strstr(f + 1, "\tfield:")) {
		const char *semi = strchr(f, ';'), *size, *end = strchr(f, '\n');
		unsigned bytes;

		if (!semi || !end || semi > end || (size_t)(semi - f) <= n || semi[-(long)n - 1] != ' ' ||
		    strncmp(semi - n, s, n))
			continue;
		size = strstr(semi, "size:");
		if (!size || size > end || !strstr(size, "signed:1;") || strstr(size, "signed:1;") > end)
			return 0;
		bytes = (unsigned)strtoul(size + 5, NULL, 10);
		return bytes == 1 ? 8 : bytes == 2 ? 16 : 0;
	}
	return 0;
}

/* text with its print fmt's %c, %pS (syms: a program's event), \"%s\"
 * and narrow signed %d rewritten (see above), or NULL: none. */
static char *fmt_chars(const char *text, bool syms)
{
	const char *f = strstr(text, "\nprint fmt: \""), *s, *arg_s;
	size_t head = f ? (size_t)(f + 13 - text) : 0;
	char *out = f ? malloc(3 * strlen(text) + 64 * 48 + 1) : NULL, *o;
	unsigned arg = ~0u, depth = 0, rewritten = 0;
	struct fmt_masks m;

	if (!out)
		return NULL;
	memcpy(out, text, head);
	o = out + head;
	m = fmt_copy(text + head, syms, &o, &s);
	if (!m.chars && !m.strs && !m.syms && !m.ints) {
		free(out);
		return NULL;
	}
	for (arg_s = s;; s++) {
		if ((*s == '"' || *s == '\'') && !depth) {
			s = skip_quoted(s) - 1;
			continue;
		}
		if (*s && *s != '\n' && (*s != ',' || depth)) {
			depth += (*s == '(' || *s == '[') - (depth && (*s == ')' || *s == ']'));
			continue;
		}
		if (arg < 64 && ((m.chars | m.strs | m.syms | m.ints) >> arg & 1)) { /* [arg_s, s) */
			const char *b = arg_s, *e = s;
			unsigned bits;

			for (; b < e && *b == ' '; b++)
				*o++ = ' ';
			for (; e > b && e[-1] == ' '; e--)
				;
			if (m.ints >> arg & 1) {
				bits = narrow_signed(text, b, e);
				o += bits ? sprintf(o, "__utrace_s%u(%.*s)", bits, (int)(e - b), b)
					  : sprintf(o, "%.*s", (int)(s - b), b);
				rewritten += bits != 0;
			} else if (m.syms >> arg & 1)
				o += sprintf(o, "__utrace_loc(%.*s)", (int)(e - b), b);
			else
				o = m.chars >> arg & 1 ? char_arg(o, b, e) : str_arg(o, b, e);
		} else {
			memcpy(o, arg_s, (size_t)(s - arg_s));
			o += s - arg_s;
		}
		if (!*s || *s == '\n')
			break;
		*o++ = ',';
		arg_s = s + 1;
		arg++;
	}
	strcpy(o, s);
	if (!m.chars && !m.strs && !m.syms && !rewritten) {
		free(out); /* no narrow signed field after all: as it was */
		return NULL;
	}
	return out;
}

int utrace_event_printer_new(struct utrace_dat *d, struct utrace_event_printer **out,
			     struct utrace_error *err)
{
	struct utrace_event_printer *p = calloc(1, sizeof(*p));

	if (!p || !(p->tep = tep_alloc())) {
		free(p);
		return utrace_error_set(err, -ENOMEM, "out of memory");
	}
	tep_set_long_size(p->tep, sizeof(long));
	tep_set_file_bigendian(p->tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(p->tep, TEP_LITTLE_ENDIAN);
	trace_seq_init(&p->seq);
	p->d = d;
	tep_set_function_resolver(p->tep, printer_resolve, p);
	tep_register_print_function(p->tep, char_print, TEP_FUNC_ARG_VOID, "__utrace_char",
				    TEP_FUNC_ARG_INT, TEP_FUNC_ARG_VOID);
	tep_register_print_function(p->tep, char_at_print, TEP_FUNC_ARG_VOID, "__utrace_char_at",
				    TEP_FUNC_ARG_STRING, TEP_FUNC_ARG_INT, TEP_FUNC_ARG_VOID);
	tep_register_print_function(p->tep, str_print, TEP_FUNC_ARG_VOID, "__utrace_str",
				    TEP_FUNC_ARG_STRING, TEP_FUNC_ARG_INT, TEP_FUNC_ARG_VOID);
	tep_register_print_function(p->tep, loc_print, TEP_FUNC_ARG_VOID, "__utrace_loc",
				    TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_VOID);
	tep_register_print_function(p->tep, stack_print, TEP_FUNC_ARG_VOID, "__utrace_stack",
				    TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_INT, TEP_FUNC_ARG_VOID);
	tep_register_print_function(p->tep, s8_val, TEP_FUNC_ARG_LONG, "__utrace_s8",
				    TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_VOID);
	tep_register_print_function(p->tep, s16_val, TEP_FUNC_ARG_LONG, "__utrace_s16",
				    TEP_FUNC_ARG_LONG, TEP_FUNC_ARG_VOID);
	for (unsigned i = 0; i < utrace_dat_event_format_count(d); i++) {
		const char *sys, *text;
		int id;

		text = utrace_dat_event_format(d, i, &id, &sys);
		/* a format libtraceevent cannot parse prints raw (see below) */
		if (text && divisions_ok(text)) {
			/* utrace's own probes (ids from UTRACE_EV_ID_BASE); the
			 * kernel's uprobes print their "(%lx)" as the kernel does */
			char *loc = id >= UTRACE_EV_ID_BASE ? fmt_loc(text) : NULL;
			char *stack = fmt_stack(loc ? loc : text);
			const char *t0 = stack ? stack : loc ? loc : text;
			char *fixed = fmt_chars(t0, id >= UTRACE_EV_ID_BASE);
			const char *t = fixed ? fixed : t0;

			tep_parse_event(p->tep, t, strlen(t), sys);
			free(fixed);
			free(stack);
			free(loc);
		}
	}
	*out = p;
	return 0;
}

void utrace_event_printer_free(struct utrace_event_printer *p)
{
	if (!p)
		return;
	trace_seq_destroy(&p->seq);
	tep_free(p->tep);
	free(p->rec);
	free(p);
}

const char *utrace_event_printer_name(struct utrace_event_printer *p, int id)
{
	struct tep_event *ev = tep_find_event(p->tep, id);

	return ev ? ev->name : NULL;
}

/*
 * libtraceevent reads a record as its format says, without checking the
 * record's size: a field past the end, a __data_loc that points outside
 * the record, or a string without its NUL is read beyond the buffer.
 * Records come from a file, so they are made safe first: the buffer
 * covers every fixed field (what a short record lacks reads as zeroes),
 * a NUL follows it, and a record whose __data_loc points outside it is
 * not given to libtraceevent at all.
 */
static size_t fields_end(const struct tep_event *ev)
{
	const struct tep_format_field *f;
	size_t end = 0;

	for (f = ev->format.fields; f; f = f->next)
		if (f->offset >= 0 && f->size >= 0 && (size_t)f->offset + (size_t)f->size > end)
			end = (size_t)f->offset + (size_t)f->size;
	return end;
}

static bool dynamic_ok(const struct tep_event *ev, const uint8_t *rec, size_t size)
{
	const struct tep_format_field *f;
	uint32_t loc;
	size_t off;

	for (f = ev->format.fields; f; f = f->next) {
		if (!(f->flags & TEP_FIELD_IS_DYNAMIC))
			continue;
		if (f->offset < 0 || f->size < 0 || (size_t)f->offset + 4 > size)
			return false;
		memcpy(&loc, rec + f->offset, 4);
		off = loc & 0xffff;
		if (f->flags & TEP_FIELD_IS_RELATIVE)
			off += (size_t)f->offset + (size_t)f->size;
		if (off + (loc >> 16) > size)
			return false;
	}
	return true;
}

/* p->rec of at least n bytes plus the NUL after them; false if out of
 * memory. */
static bool rec_reserve(struct utrace_event_printer *p, size_t n)
{
	return UTRACE_GROW(p->rec, p->cap, n + 1) == 0;
}

const char *utrace_event_printer_render(struct utrace_event_printer *p, int id, int pid,
					const void *data, uint32_t len)
{
	struct tep_record rec = {0};
	struct tep_event *ev = tep_find_event(p->tep, id);
	uint16_t type = (uint16_t)id;
	size_t size = (size_t)len + 8;

	trace_seq_reset(&p->seq);
	if (!ev) {
		trace_seq_printf(&p->seq, "[unknown event %d: %u bytes]", id, len);
		goto out;
	}
	if (fields_end(ev) > size)
		size = fields_end(ev);
	if (size > INT32_MAX || !rec_reserve(p, size)) {
		trace_seq_puts(&p->seq, "[out of memory]");
		goto out;
	}
	/* common_type, common_flags, common_preempt_count, common_pid */
	memcpy(p->rec, &type, 2);
	p->rec[2] = 0;
	p->rec[3] = 0;
	memcpy(p->rec + 4, &pid, 4);
	memcpy(p->rec + 8, data, len);
	memset(p->rec + 8 + len, 0, size + 1 - 8 - len);
	if (!dynamic_ok(ev, p->rec, size)) {
		trace_seq_printf(&p->seq, "[malformed %s record: %u bytes]", ev->name, len);
		goto out;
	}
	rec.data = p->rec;
	rec.size = (int)size;
	printing = p;
	tep_print_event(p->tep, &p->seq, &rec, "%s", TEP_PRINT_INFO);
	printing = NULL;
out:
	trace_seq_terminate(&p->seq);
	return p->seq.buffer;
}

/* trace_print_lat_fmt(): irqs-off, need-resched, hardirq/softirq,
 * preempt depth, migrate-disable, from a kernel record's common_flags
 * (TRACE_FLAG_*) and common_preempt_count; "....." for a user record. */
void utrace_event_lat_fmt(const struct utrace_event *ev, char out[6])
{
	enum {
		IRQS_OFF = 0x01,
		LAZY = 0x02,
		NEED = 0x04,
		HARDIRQ = 0x08,
		SOFTIRQ = 0x10,
		PREEMPT = 0x20,
		NMI = 0x40,
		BH_OFF = 0x80
	};
	static const char resched[8] = {'.', 'l', 'n', 'b', 'p', 'L', 'N', 'B'};
	uint8_t f = ev->ctx_flags, pc = ev->ctx_preempt;

	memcpy(out, ".....", 6);
	if (!ev->has_ctx)
		return;
	out[0] = (f & IRQS_OFF) && (f & BH_OFF) ? 'D' : f & IRQS_OFF ? 'd' : f & BH_OFF ? 'b' : '.';
	out[1] = resched[(f & LAZY ? 1 : 0) | (f & NEED ? 2 : 0) | (f & PREEMPT ? 4 : 0)];
	out[2] = (f & NMI) && (f & HARDIRQ)	  ? 'Z'
		 : f & NMI			  ? 'z'
		 : (f & HARDIRQ) && (f & SOFTIRQ) ? 'H'
		 : f & HARDIRQ			  ? 'h'
		 : f & SOFTIRQ			  ? 's'
						  : '.';
	out[3] = pc & 0xf ? "0123456789abcdef"[pc & 0xf] : '.';
	out[4] = pc >> 4 ? "0123456789abcdef"[pc >> 4] : '.';
}
