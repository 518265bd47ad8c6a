/* SPDX-License-Identifier: MIT */
/*
 * bt_attach.c - an attach point's text ("uprobe:/bin/bash:readline",
 * "interval:ms:100", "BEGIN") split into its probe type and arguments,
 * with bpftrace's messages (the whole attach point underlined).  Whether
 * a uprobe's target exists is checked here, as bpftrace's parser does
 * (with -p, the process's file: /proc/PID/root/PATH in another mount
 * namespace, which the probe then names, as bpftrace's);
 * which functions it names, when the probes are resolved (bt_probes.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/base/proc_self.h"
#include "lib/bt/bt_ast.h"
#include "lib/bt/bt_types.h"

static const struct {
	const char *name, *alias;
	enum bt_probe_type type;
} bt_types[] = {
    {"BEGIN", NULL, BT_P_BEGIN},	  {"END", NULL, BT_P_END},
    {"uprobe", "u", BT_P_UPROBE},	  {"uretprobe", "ur", BT_P_URETPROBE},
    {"interval", "i", BT_P_INTERVAL},	  {"usdt", "U", BT_P_USDT},
    {"tracepoint", "t", BT_P_TRACEPOINT}, {"profile", "p", BT_P_PROFILE},
};

/* The parts of text split at ':' (at most max), NUL-terminated in buf. */
static unsigned split(char *buf, char **parts, unsigned max)
{
	unsigned n = 0;

	for (char *s = buf; n < max;) {
		parts[n++] = s;
		s = strchr(s, ':');
		if (!s)
			break;
		*s++ = 0;
	}
	return n;
}

static int parse_interval(struct bt_program *p, struct bt_attach *a, char **parts, unsigned n,
			  struct utrace_error *err)
{
	static const struct {
		const char *unit;
		uint64_t ns;
	} units[] = {{"s", 1000000000ull}, {"ms", 1000000ull}, {"us", 1000ull}, {"hz", 0}};
	char *end;
	unsigned long long v;

	if (n != 3)
		return bt_error(err, p, a->loc, BT_ERR_PROBE_NARGS, "interval", 2u);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(parts[1], units[i].unit))
			continue;
		v = strtoull(parts[2], &end, 10);
		if (*end || !v || end == parts[2])
			return bt_error(err, p, a->loc, BT_ERR_PROBE_NUMBER, "interval",
					"period");
		a->period_ns = units[i].ns ? v * units[i].ns : 1000000000ull / v;
		return 0;
	}
	return bt_error(err, p, a->loc, BT_ERR_TIME_UNIT, parts[1]);
}

static int parse_uprobe_at(struct bt_program *p, struct bt_attach *a, const char *target,
			   char *func, struct utrace_error *err)
{
	const char *name = a->type == BT_P_UPROBE ? "uprobe" : "uretprobe";
	char *plus, at[PATH_MAX + 64];
	size_t n;

	/* -p: the file as the process sees it, through /proc/PID/root when
	 * ours is not that file (another mount namespace), as bpftrace's */
	if (p->pid > 0 && utrace_proc_path(p->pid, target, at, sizeof(at)) >= 0)
		target = at;
	if (access(target, X_OK) != 0 && access(target, R_OK) != 0)
		return bt_error(err, p, a->loc, BT_ERR_PROBE_TARGET, target);
	plus = strchr(func, '+');
	if (plus) {
		char *end;

		if (a->type == BT_P_URETPROBE)
			return bt_error(err, p, a->loc, BT_ERR_PROBE_OFFSET);
		*plus = 0;
		a->off = strtoull(plus + 1, &end, 0);
		if (*end || end == plus + 1)
			return bt_error(err, p, a->loc, BT_ERR_PROBE_NUMBER, name, "offset");
	}
	n = strlen(func); /* a quoted name: uprobe:/bin/bash:"echo_builtin"+0 */
	if (n >= 2 && func[0] == '"' && func[n - 1] == '"') {
		func[n - 1] = 0;
		func++;
	}
	a->target = strdup(target);
	a->func = strdup(func);
	if (!a->target || !a->func)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	return 0;
}

static int parse_uprobe(struct bt_program *p, struct bt_attach *a, char **parts, unsigned n,
			struct utrace_error *err)
{
	const char *name = a->type == BT_P_UPROBE ? "uprobe" : "uretprobe";
	char *lib;

	if (n != 3)
		return bt_error(err, p, a->loc, BT_ERR_PROBE_NARGS, name, 2u);
	/* uprobe:libc:FUNC: the library the dynamic linker would load */
	if (!strncmp(parts[1], "lib", 3) && !strpbrk(parts[1], "*?[") &&
	    (lib = bt_which_so(parts[1] + 3, NULL))) {
		int ret = parse_uprobe_at(p, a, lib, parts[2], err);

		free(lib);
		return ret;
	}
	return parse_uprobe_at(p, a, parts[1], parts[2], err);
}

/* usdt:BIN:PROVIDER:NAME or usdt:BIN:NAME (any provider); BIN may be ""
 * (-p's files) or a glob: bt_usdt.c reads the notes. */
/* A quoted part ("\"probe1\"", a name that holds quotes): its text. */
static char *unquote(char *s)
{
	size_t n = strlen(s), o = 0;

	if (n < 2 || s[0] != '"' || s[n - 1] != '"')
		return s;
	for (size_t i = 1; i < n - 1; i++) {
		if (s[i] == '\\' && i + 1 < n - 1)
			i++;
		s[o++] = s[i];
	}
	s[o] = 0;
	return s;
}

static int parse_usdt(struct bt_program *p, struct bt_attach *a, char **parts, unsigned n,
		      struct utrace_error *err)
{
	const char *prov = n == 4 ? unquote(parts[2]) : "*", *name = unquote(parts[n - 1]);
	size_t len;

	if (n != 3 && n != 4)
		return bt_error(err, p, a->loc, BT_ERR_PROBE_NARGS, "usdt", 2u);
	if (!*prov)
		prov = "*";
	len = strlen(prov) + strlen(name) + 2;
	a->target = strdup(parts[1]);
	a->func = malloc(len);
	if (!a->target || !a->func)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	snprintf(a->func, len, "%s:%s", prov, *name ? name : "*");
	return 0;
}

int bt_attach_parse(struct bt_program *p, struct bt_attach *a, struct utrace_error *err)
{
	char *buf = strchr(a->text, '$') ? bt_param_attach(p, a->text) : strdup(a->text), *parts[4];
	unsigned n;
	int ret = 0;
	size_t i;

	if (!buf)
		return utrace_error_set(err, -ENOMEM, "out of memory");
	if (strcmp(buf, a->text)) { /* positional parameters: probe says the words */
		free(a->text);
		if (!(a->text = strdup(buf))) {
			free(buf);
			return utrace_error_set(err, -ENOMEM, "out of memory");
		}
	}
	n = split(buf, parts, 4);
	for (i = 0; i < sizeof(bt_types) / sizeof(bt_types[0]); i++)
		if (!strcmp(parts[0], bt_types[i].name) ||
		    (bt_types[i].alias && !strcmp(parts[0], bt_types[i].alias)))
			break;
	if (i == sizeof(bt_types) / sizeof(bt_types[0])) {
		ret = bt_error(err, p, a->loc, BT_ERR_PROBE_TYPE, parts[0]);
		goto out;
	}
	a->type = bt_types[i].type;
	if ((a->type == BT_P_BEGIN || a->type == BT_P_END) && n != 1)
		ret = bt_error(err, p, a->loc, BT_ERR_PROBE_NARGS, parts[0], 0u);
	else if (a->type == BT_P_INTERVAL || a->type == BT_P_PROFILE)
		ret = parse_interval(p, a, parts, n, err);
	else if (a->type == BT_P_UPROBE || a->type == BT_P_URETPROBE)
		ret = parse_uprobe(p, a, parts, n, err);
	else if (a->type == BT_P_USDT)
		ret = parse_usdt(p, a, parts, n, err);
	else if (a->type == BT_P_TRACEPOINT && n != 3)
		ret = bt_error(err, p, a->loc, BT_ERR_PROBE_NARGS, parts[0], 2u);
	else if (a->type == BT_P_TRACEPOINT && (!(a->target = strdup(parts[1])) ||
						!(a->func = strdup(parts[2]))))
		ret = utrace_error_set(err, -ENOMEM, "out of memory");
out:
	free(buf);
	return ret;
}

static void free_nodes(struct bt_node **v, unsigned n);

static void free_node(struct bt_node *x)
{
	if (!x)
		return;
	free(x->str);
	free_node(x->a);
	free_node(x->b);
	free_node(x->c);
	free_nodes(x->args, x->nargs);
	free_nodes(x->body, x->nbody);
	free_nodes(x->orelse, x->norelse);
	free(x);
}

static void free_nodes(struct bt_node **v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free_node(v[i]);
	free(v);
}

void bt_program_free(struct bt_program *p)
{
	for (unsigned i = 0; i < p->nprobes; i++) {
		struct bt_probe *pr = &p->probes[i];

		for (unsigned k = 0; k < pr->naps; k++) {
			free(pr->aps[k].text);
			free(pr->aps[k].target);
			free(pr->aps[k].func);
		}
		free(pr->aps);
		free_node(pr->pred);
		free_nodes(pr->body, pr->nbody);
	}
	free(p->probes);
	for (unsigned i = 0; i < p->nmaps; i++)
		free(p->maps[i].name);
	free(p->maps);
	for (unsigned i = 0; i < p->nvars; i++)
		free(p->vars[i]);
	free(p->vars);
	free(p->var_types);
	free(p->var_sizes);
	free(p->var_ctypes);
	bt_ctypes_free(p);
	free(p->warnings);
	for (unsigned i = 0; i < p->nshapes; i++)
		free(p->shapes[i]);
	free(p->shapes);
	p->shapes = NULL;
	p->nshapes = 0;
	for (unsigned i = 0; i < p->ntp_fields; i++)
		free(p->tp_fields[i]);
	p->ntp_fields = 0;
	p->tp_deref = 0;
	p->probes = NULL;
	p->maps = NULL;
	p->vars = NULL;
	p->nprobes = p->nmaps = p->nvars = 0;
}
