/* SPDX-License-Identifier: MIT */
/*
 * func_patch.h - tracing the functions of an object built without the
 * instrumentation flags: which functions it has, and which of their
 * entries can be patched with a 5-byte jmp to a detour.
 *
 * The functions are those of the symbol table (lib/elf/symtab.h: .symtab,
 * or .dynsym and .eh_frame's FDEs as sub_ADDR when stripped).  Each is
 * decoded whole (Zydis); an entry is patched only where the kernel's
 * optprobe conditions hold (lib/probes/func_patch.c says how), else it is
 * left out with one of the reasons below.  The runtime runs the patched
 * entry as `jmp detour`, the detour `call stub` (the compiler sites'
 * stub: the tracer's entry hook), then the moved instructions relocated
 * here, then `jmp` back (runtime/func_patch.c).
 *
 * Where a jmp cannot be proven safe (too short a function, a branch into
 * its first bytes, an instruction after the first that cannot move) but
 * the first instruction alone can move and no branch but a call lands
 * on it, the entry gets a 1-byte int3 instead: the runtime's SIGTRAP
 * handler sends the thread to the same kind of slot, whose displaced
 * instruction is that first one (int3 below).
 */
#ifndef UTRACE_LIB_FUNC_PATCH_H
#define UTRACE_LIB_FUNC_PATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/proto.h"
#include "lib/base/error.h"

/* Why an entry is left out: X(NAME, text), in this order. */
#define UTRACE_FPATCH_WHYS(X)                                                                      \
	X(OK, "patched")                                                                           \
	X(SHORT, "shorter than the 5 bytes of a jmp")                                              \
	X(NOT_IN_FILE, "its code is not in the file")                                              \
	X(DECODE, "an instruction does not decode")                                                \
	X(BRANCH_IN, "a branch lands inside its first 5 bytes")                                    \
	X(TABLE, "an indirect jump whose table was not found")                                     \
	X(UNMOVABLE, "a trap or system call in its first 5 bytes")                                 \
	X(CALL_EH, "a call that returns into the detour, in an object with C++ exceptions")        \
	X(RELOC, "an instruction of its first 5 bytes cannot run elsewhere")                       \
	X(ENTRY, "the program's entry point (no return address)")                                  \
	X(PART, "a part of a function, not its entry (cold code)")                                \
	X(RUNTIME, "code of a runtime with its own registers and stacks (Go, V8's builtins)")     \
	X(INSIDE, "entered after its first instruction (a nop, then a call: Go's goexit)")       \
	X(UPROBE, "a kernel uprobe of the recording in its first bytes")                           \
	X(UNSELECTED, "not selected: not planned")

enum utrace_fpatch_why {
#define UTRACE_FPATCH_ENUM(n, t) UTRACE_FPATCH_##n,
	UTRACE_FPATCH_WHYS(UTRACE_FPATCH_ENUM)
#undef UTRACE_FPATCH_ENUM
	    UTRACE_FPATCH_NWHY
};

#define UTRACE_FPATCH_CODE 32 /* at most, of moved bytes */

struct utrace_fpatch_func {
	uint64_t func, size; /* the function (ELF vaddrs) */
	uint64_t addr;	     /* where the jmp goes: func, or func + 4 after endbr64 */
	const char *name;    /* demangled (valid while the plan is) */
	const char *raw;     /* as in the symbol table */
	uint32_t len;	     /* bytes the jmp displaces (whole instructions, >= 5) */
	uint32_t why;	     /* enum utrace_fpatch_why */
	/* OK with a 1-byte int3 at addr instead of the jmp: why the jmp was
	 * refused (0: the jmp); len is then the first instruction's */
	uint32_t int3;
	/* an object with C++ exceptions: a direct call that ends the
	 * displaced instructions returns into the function itself, so that
	 * its landing pad is found (a plain call, elsewhere: a return the CPU
	 * predicts) */
	bool emulate_call;
	uint8_t code[UTRACE_FPATCH_CODE]; /* the displaced bytes */
};

/*
 * A language runtime that reads or moves the return addresses of the
 * object's functions (lib/probes/func_patch_deny.c): function_graph must
 * not replace them, and traces those functions' entries only.
 */
enum utrace_fpatch_runtime {
	UTRACE_FPATCH_RT_NONE,
	UTRACE_FPATCH_RT_GO,	  /* moves goroutine stacks, walks their frames */
	UTRACE_FPATCH_RT_HOTSPOT, /* the JVM: walks its own stack (frame::sender) */
	UTRACE_FPATCH_RT_V8,	  /* walks its frames, entered from builtins */
};

/* PART ones are not functions: a plan's functions are n - count[PART]. */
struct utrace_fpatch_plan {
	struct utrace_fpatch_func *f; /* every function found, by address */
	size_t n;
	size_t count[UTRACE_FPATCH_NWHY];
	size_t nint3;		   /* of count[OK], those patched with int3 */
	struct utrace_symtab *tab; /* the names */
	unsigned runtime;	   /* enum utrace_fpatch_runtime */
};

/* The plan for the object at path: 0, or <0 with err (not a readable
 * ELF object, out of memory). */
int utrace_fpatch_plan(const char *path, struct utrace_fpatch_plan *plan, struct utrace_error *err);

/*
 * The same for the functions want(arg, name, raw) selects only; the
 * others are UNSELECTED.  Every function is still decoded, since a branch
 * into a selected entry's first bytes may come from any code of the
 * object (and a byte sweep cannot tell an instruction from an operand),
 * but only the targets that land in a selected entry's first bytes are
 * kept: no sort of every branch of a big object, and no decision for
 * what is not selected.  A selected function's decision is the whole
 * plan's.
 */
typedef bool (*utrace_fpatch_want_fn)(void *arg, const char *name, const char *raw);
int utrace_fpatch_plan_only(const char *path, utrace_fpatch_want_fn want, void *arg,
			    struct utrace_fpatch_plan *plan, struct utrace_error *err);
void utrace_fpatch_plan_free(struct utrace_fpatch_plan *plan);

/*
 * The entries of plan (made for the file at path) that the kernel uprobe
 * p would lose, left out as UPROBE: p is on the same file (the same build
 * id, else the same inode) at an offset in a function's bytes up to the
 * end of those the entry displaces.  The kernel writes its int3 into each
 * process that maps the file; the runtime's jmp (or int3) there would
 * overwrite it, and the kernel's probe would never fire.  Returns how
 * many entries were left out.
 */
struct utrace_uprobe;
size_t utrace_fpatch_plan_uprobe(struct utrace_fpatch_plan *plan, const char *path,
				 const struct utrace_uprobe *p);
const char *utrace_fpatch_why_text(unsigned why);
/* "Go", "HotSpot (the JVM)", "V8"; NULL for none. */
const char *utrace_fpatch_runtime_text(unsigned runtime);
/* The runtime of the ELF object at path (enum utrace_fpatch_runtime; NONE
 * if it cannot be read), without a plan: for a program that runs no
 * preloaded code (statically linked), to say what works instead. */
unsigned utrace_fpatch_runtime_of(const char *path);

/*
 * The detour's tail for f placed at vaddr at (the runtime's address minus
 * the object's bias; the slot starts UTRACE_FPATCH_HEAD bytes before):
 * the displaced instructions re-encoded for there, then `jmp` back to
 * f->addr + f->len; with f->emulate_call, a direct call that ends them
 * pushes bias + f->addr + f->len, the return address it has in place, and
 * jumps to its callee.  Its length (<= room), or 0 if it cannot be (a
 * displacement out of rel32 reach).  cfi (UTRACE_FPATCH_CFI bytes): the
 * slot's call frame instructions after the CIE's (common/proto.h),
 * *cfi_len of them, UINT32_MAX if they cannot be described.
 */
size_t utrace_fpatch_relocate(const struct utrace_fpatch_func *f, uint64_t bias, uint64_t at,
			      uint8_t *out, size_t room, uint8_t *cfi, uint32_t *cfi_len);

#endif
