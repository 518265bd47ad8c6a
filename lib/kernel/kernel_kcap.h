/* SPDX-License-Identifier: MIT */
/*
 * kernel_kcap.h - user memory read at a kernel event, by the kernel, as
 * the event happens (kernel_kcap.c).
 *
 * A kernel tracepoint's record holds the values of its fields, and a
 * field that is a pointer into the process that hit it (sys_enter_openat's
 * filename, sys_enter_execve's argv) holds only the address: by the time
 * a tool reads the record, the string may be gone, the process too.
 * bpftrace reads it in the BPF program the tracepoint runs; this kernel
 * has no event probes (tracefs e:) that would do it for a tracefs event.
 * So a capture is a small BPF program of utrace's on the tracepoint that
 * reads, at each hit, the string each such field points to (STR), or the
 * NULL-ended array of strings (STRV, as execve's argv: up to
 * UTRACE_KCAP_STRV_MAX), and hands them over with the thread's id.  The
 * reader of the tracefs record then asks for the capture of that thread's
 * hit whose fields held the same addresses (utrace_kcap_take) and reads
 * the strings from it as if from the process's memory: regions, each an
 * address and the bytes found there.  A capture may also keep the name
 * of the thread at the hit (UTRACE_KCAP_COMM: bpf_get_current_comm, as
 * bpftrace's comm): the record holds only its pid, and by the time it is
 * read the thread may have run exec or renamed itself (prctl
 * PR_SET_NAME), or be gone.
 */
#ifndef UTRACE_LIB_KERNEL_KCAP_H
#define UTRACE_LIB_KERNEL_KCAP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/base/error.h"

struct utrace_kcap;

#define UTRACE_KCAP_STRLEN 64u	  /* bytes of a string read, its NUL included */
#define UTRACE_KCAP_STRV_MAX 16u  /* an array's strings (bpftrace's join_argnum) */
#define UTRACE_KCAP_FIELDS_MAX 6u /* fields read at one event */
#define UTRACE_KCAP_COMMLEN 16u	  /* a thread's name, its NUL included (TASK_COMM_LEN) */

/* utrace_kcap_attach's flags */
#define UTRACE_KCAP_COMM 1u /* the thread's name at the hit read too */

enum utrace_kcap_kind {
	UTRACE_KCAP_STR,  /* char *: the string it points to */
	UTRACE_KCAP_STRV, /* char **: its pointers up to a NULL one, and their strings */
};

/* A pointer field of the event's record, as its format file says. */
struct utrace_kcap_field {
	uint32_t offset; /* in the record, common fields included (8-byte aligned) */
	enum utrace_kcap_kind kind;
};

/* Memory a capture read: bytes found at addr. */
struct utrace_kcap_region {
	uint64_t addr;
	const uint8_t *bytes;
	size_t len;
};

/* The kind of a field of C type ctype ("const char *", "const char
 * *const *"), size bytes at offset; -1 if none is read for it. */
int utrace_kcap_field_kind(const char *ctype, unsigned size, unsigned offset);

/* A set of captures, one BPF ring for all.  0, or <0 with err (no BPF:
 * the kernel's message, as EPERM for one who is not root). */
int utrace_kcap_new(struct utrace_kcap **out, struct utrace_error *err);

/* The capture of fields f[0..n) (and of the thread's name with
 * UTRACE_KCAP_COMM in flags: n may then be 0) at every hit of the kernel
 * event whose id (events/SYS/NAME/id) is event_id: its tag (>= 0), or <0
 * with err (the verifier's last line if it refuses the program). */
int utrace_kcap_attach(struct utrace_kcap *k, int event_id, const struct utrace_kcap_field *f,
		       unsigned n, unsigned flags, struct utrace_error *err);

/*
 * The memory read at thread tid's hit of tag whose fields held vals[0..n)
 * (the record's values of the fields, in attach's order), the record's
 * time ns (CLOCK_MONOTONIC; records are taken in time order; of several
 * such captures, the one nearest that time is the hit's): up to max
 * regions into out, valid until the next take; 0 if no capture matches
 * (lost: the ring was full, or the record is not of a hit the program
 * saw).  Captures of tid and tag before the one taken are dropped, and
 * those of any thread long before ns.  A take of the same tid, tag and
 * ns again (the record run by a second probe of its event) gives the
 * same capture.
 */
unsigned utrace_kcap_take(struct utrace_kcap *k, int tid, int tag, uint64_t ns,
			  const uint64_t *vals, unsigned n, struct utrace_kcap_region *out,
			  unsigned max);

/* The thread's name at the hit whose capture the last take matched
 * (UTRACE_KCAP_COMMLEN bytes, NUL-ended), valid until the next take; NULL
 * if it matched none or its tag does not read the name. */
const char *utrace_kcap_comm(const struct utrace_kcap *k);

/*
 * Reads size bytes at addr from regions rg[0..n) (utrace_kcap_take's, or
 * copies of them) into *out, little endian, each byte from the first
 * region that holds it, the byte one past a region (a string's NUL, not
 * in its region) as 0, and 0 where none does: an aligned word may hold
 * the end of one string and the start of the next, and a string read a
 * word at a time reads past its NUL.  0 if any byte was found, -1 if none
 * (a fault).
 */
int utrace_kcap_regions_load(const struct utrace_kcap_region *rg, unsigned n, uint64_t addr,
			     unsigned size, uint64_t *out);

/* Captures lost: the BPF ring was full at the hit, or the reader's queue
 * (a record that never came is not counted). */
uint64_t utrace_kcap_lost(const struct utrace_kcap *k);

/* Detaches every program, frees k (NULL: nothing). */
void utrace_kcap_free(struct utrace_kcap *k);

#endif
