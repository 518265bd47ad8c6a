/* SPDX-License-Identifier: MIT */
/*
 * usdt.h - the USDT probes of an ELF file (DTRACE_PROBE*() / STAP_PROBE*()
 * of <sys/sdt.h>), read from its .note.stapsdt notes, and the uprobe that
 * attaches to one (`utrace list --usdt`, `utrace record -e usdt:P:N`).
 *
 * A probe site is a NOP at pc; its note gives provider, name, pc, the
 * address of the .stapsdt.base section at link time (to undo a prelink),
 * the address of its semaphore (0 if none: a counter the program reads to
 * skip computing the arguments when nobody listens; the kernel increments
 * it while a uprobe with that ref_ctr_offset is registered) and the
 * arguments as the compiler placed them, "SIZE@OPERAND" each, SIZE
 * negative if signed ("-4@%edi 8@%rsi -4@-12(%rbp) 8@$5").  One
 * provider:name may have several sites (a probe in an inline function).
 */
#ifndef UTRACE_LIB_USDT_H
#define UTRACE_LIB_USDT_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"
#include "lib/probes/uprobe.h"

#define UTRACE_USDT_DEFAULT_GROUP "utrace_usdt"

struct utrace_usdt_list;

struct utrace_usdt_probe {
	const char *provider, *name;
	const char *args;    /* the note's argument spec, "" if none */
	uint64_t pc;	     /* the NOP's ELF vaddr (prelink undone) */
	uint64_t semaphore;  /* the semaphore's vaddr, 0 if none */
	uint64_t offset;     /* pc's file offset: where the uprobe goes */
	uint64_t sem_offset; /* the semaphore's file offset (ref_ctr_offset), 0 if none */
};

/*
 * Reads the notes of path (an executable or shared library).  A file
 * without notes gives an empty list.  0, or <0 with err filled (not
 * readable, not ELF64, a malformed note).
 */
int utrace_usdt_load(const char *path, struct utrace_usdt_list **out, struct utrace_error *err);
void utrace_usdt_free(struct utrace_usdt_list *l);

/* The file's absolute path. */
const char *utrace_usdt_path(const struct utrace_usdt_list *l);
size_t utrace_usdt_count(const struct utrace_usdt_list *l);
/* Site i, in the order of the notes; NULL if out of range. */
const struct utrace_usdt_probe *utrace_usdt_get(const struct utrace_usdt_list *l, size_t i);

/*
 * Site i's argument spec as uprobe fetchargs, "arg1=%di:s32
 * arg2=+16(%bp):u64 arg3=\5:s32 ...": a register becomes its 64-bit name
 * with the operand's size as type, base+displacement a dereference, $imm
 * an immediate, a %rip-relative or absolute symbol @+OFFSET.  Writes at
 * most size bytes to buf (NUL-terminated); returns the length, or <0 with
 * err ("provider:name: argument N 'SPEC': ...") for an operand a uprobe
 * cannot fetch (an index register, a segment, a floating-point register).
 */
int utrace_usdt_fetchargs(const struct utrace_usdt_list *l, size_t i, char *buf, size_t size,
			  struct utrace_error *err);
/* The same as an in-process probe's fetchargs (lib/probes/uprobe_args.c),
 * which also take an index register: "8@-88(%rsp,%rax,8)" is
 * "arg1=-88(%sp,%ax,8):u64". */
int utrace_usdt_fetchargs_in_process(const struct utrace_usdt_list *l, size_t i, char *buf,
				     size_t size, struct utrace_error *err);

/*
 * The uprobe for site i: at its file offset, with its semaphore as
 * ref_ctr_offset and its arguments arg1..argN.  group NULL: "utrace_usdt";
 * event NULL: the probe's name (made a C identifier).  Every site of one
 * provider:name gets the same argument names, so they can be registered
 * as one event (the kernel takes a second location of an event whose
 * arguments have the same names and types).
 */
int utrace_usdt_to_uprobe(const struct utrace_usdt_list *l, size_t i, const char *group,
			  const char *event, struct utrace_uprobe **out, struct utrace_error *err);

#endif
