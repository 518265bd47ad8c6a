/* SPDX-License-Identifier: MIT */
/*
 * bt_dump.c - a compiled program as text (`utrace bt -d`): its maps, then
 * one instruction a line, as the comment of common/bt_prog.h shows them.
 */
#include <inttypes.h>
#include <stdio.h>

#include "lib/bt/bt_compile.h"

static const char *const op_names[UTRACE_BOP_MAX] = {
    [UTRACE_BOP_PUSH] = "PUSH",	  [UTRACE_BOP_ARG] = "ARG",	 [UTRACE_BOP_BUILTIN] = "BUILTIN",
    [UTRACE_BOP_COMM] = "COMM",	  [UTRACE_BOP_SCONST] = "SCONST", [UTRACE_BOP_STR] = "STR",
    [UTRACE_BOP_VLD] = "VLD",	  [UTRACE_BOP_VST] = "VST",	 [UTRACE_BOP_POP] = "POP",
    [UTRACE_BOP_DUP] = "DUP",	  [UTRACE_BOP_JMP] = "JMP",	 [UTRACE_BOP_JZ] = "JZ",
    [UTRACE_BOP_ADD] = "ADD",	  [UTRACE_BOP_SUB] = "SUB",	 [UTRACE_BOP_MUL] = "MUL",
    [UTRACE_BOP_DIV] = "DIV",	  [UTRACE_BOP_MOD] = "MOD",	 [UTRACE_BOP_AND] = "AND",
    [UTRACE_BOP_OR] = "OR",	  [UTRACE_BOP_XOR] = "XOR",	 [UTRACE_BOP_SHL] = "SHL",
    [UTRACE_BOP_SHR] = "SHR",	  [UTRACE_BOP_EQ] = "EQ",	 [UTRACE_BOP_NE] = "NE",
    [UTRACE_BOP_LT] = "LT",	  [UTRACE_BOP_LE] = "LE",	 [UTRACE_BOP_GT] = "GT",
    [UTRACE_BOP_GE] = "GE",	  [UTRACE_BOP_STREQ] = "STREQ",	 [UTRACE_BOP_STRNE] = "STRNE",
    [UTRACE_BOP_LNOT] = "LNOT",	  [UTRACE_BOP_BNOT] = "BNOT",	 [UTRACE_BOP_NEG] = "NEG",
    [UTRACE_BOP_KEY] = "KEY",	  [UTRACE_BOP_MGET] = "MGET",	 [UTRACE_BOP_MSET] = "MSET",
    [UTRACE_BOP_AGG] = "AGG",	  [UTRACE_BOP_MDEL] = "MDEL",	 [UTRACE_BOP_EMIT] = "EMIT",
    [UTRACE_BOP_USTACK] = "USTACK", [UTRACE_BOP_USYM] = "USYM",	 [UTRACE_BOP_FIELD] = "FIELD", [UTRACE_BOP_LOAD] = "LOAD", [UTRACE_BOP_LOADREC] = "LOADREC",
    [UTRACE_BOP_EXT] = "EXT",	  [UTRACE_BOP_BSWAP] = "BSWAP",	 [UTRACE_BOP_STRNCMP] = "STRNCMP",
    [UTRACE_BOP_STRSTR] = "STRSTR", [UTRACE_BOP_NAME] = "NAME", [UTRACE_BOP_LOOP] = "LOOP",
    [UTRACE_BOP_TUPLE] = "TUPLE",  [UTRACE_BOP_TGET] = "TGET",	 [UTRACE_BOP_STRFTIME] = "STRFTIME",
    [UTRACE_BOP_BUF] = "BUF",	  [UTRACE_BOP_NTOP] = "NTOP",
};

void bt_code_dump(const struct bt_code *c, FILE *out)
{
	const struct utrace_bt_hdr *h = c->prog;
	const struct utrace_bt_insn *in = utrace_bt_insns(h);

	for (uint32_t i = 0; i < h->nr_maps; i++) {
		const struct utrace_bt_mapdesc *m = &utrace_bt_maps(h)[i];

		fprintf(out, "  map %u: keys %u (strings 0x%x) agg %u%s\n", i, m->nkeys, m->key_str,
			m->agg, m->value_str ? " string" : "");
	}
	for (uint32_t i = 0; i < h->nr_insns; i++) {
		fprintf(out, "  %3u: %-7s", i, op_names[in[i].op] ? op_names[in[i].op] : "?");
		switch (in[i].op) {
		case UTRACE_BOP_PUSH:
		case UTRACE_BOP_JMP:
		case UTRACE_BOP_JZ:
			fprintf(out, " %" PRId64, in[i].imm);
			break;
		case UTRACE_BOP_SCONST:
			fprintf(out, " \"%.*s\"", in[i].b, (const char *)c->prog + in[i].imm);
			break;
		case UTRACE_BOP_EXT:
		case UTRACE_BOP_BSWAP:
		case UTRACE_BOP_STRNCMP:
		case UTRACE_BOP_TUPLE:
		case UTRACE_BOP_TGET:
		case UTRACE_BOP_STRFTIME:
			fprintf(out, " %u %u %" PRId64, in[i].a, in[i].b, in[i].imm);
			break;
		case UTRACE_BOP_ARG:
		case UTRACE_BOP_FIELD:
		case UTRACE_BOP_BUILTIN:
		case UTRACE_BOP_VLD:
		case UTRACE_BOP_VST:
			fprintf(out, " %u", in[i].a);
			break;
		case UTRACE_BOP_KEY:
		case UTRACE_BOP_MGET:
		case UTRACE_BOP_MSET:
		case UTRACE_BOP_MDEL:
		case UTRACE_BOP_AGG:
			fprintf(out, " map %u %u", in[i].a, in[i].b);
			break;
		case UTRACE_BOP_EMIT:
			fprintf(out, " kind %u values %u id %" PRId64, in[i].a, in[i].b, in[i].imm);
			break;
		case UTRACE_BOP_USTACK:
			fprintf(out, " %s %" PRId64, in[i].a ? "perf" : "bpftrace", in[i].imm);
			break;
		default:
			break;
		}
		fputc('\n', out);
	}
}
