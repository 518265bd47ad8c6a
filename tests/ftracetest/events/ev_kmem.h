/* SPDX-License-Identifier: MIT */
/* ev_kmem.h - system kmem of tests/ftracetest/kprog.c: the kernel's names, field layouts,
 * call_site's %pS and the prototypes of kmem_cache_alloc and kfree (v6.12) */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM kmem
#if !defined(KEV_kmem_H) || defined(TRACE_HEADER_MULTI_READ)
#define KEV_kmem_H
#include <stdbool.h>
#include <sys/types.h>
#include <utrace/tracepoint.h>
#include "kstructs.h"

TRACE_EVENT(kmalloc,
	TP_PROTO(unsigned long cs, const void *ptr, size_t req, size_t alloc, unsigned long gfp, int node),
	TP_ARGS(cs, ptr, req, alloc, gfp, node),
	TP_STRUCT__entry(__field(unsigned long, call_site) __field(const void *, ptr) __field(size_t, bytes_req)
		__field(size_t, bytes_alloc) __field(unsigned long, gfp_flags) __field(int, node)),
	TP_fast_assign(__entry->call_site = cs; __entry->ptr = ptr; __entry->bytes_req = req;
		__entry->bytes_alloc = alloc; __entry->gfp_flags = gfp; __entry->node = node;),
	TP_printk("call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%lx node=%d",
		(void *)__entry->call_site, __entry->ptr, __entry->bytes_req, __entry->bytes_alloc,
		__entry->gfp_flags, __entry->node)
);
TRACE_EVENT(kmem_cache_alloc,
	TP_PROTO(unsigned long call_site, const void *ptr, struct kmem_cache *s, gfp_t gfp_flags, int node),
	TP_ARGS(call_site, ptr, s, gfp_flags, node),
	TP_STRUCT__entry(__field(unsigned long, call_site) __field(const void *, ptr) __field(size_t, bytes_req)
		__field(size_t, bytes_alloc) __field(unsigned long, gfp_flags) __field(int, node)
		__field(bool, accounted)),
	TP_fast_assign(__entry->call_site = call_site; __entry->ptr = ptr; __entry->bytes_req = s->object_size;
		__entry->bytes_alloc = s->size; __entry->gfp_flags = gfp_flags; __entry->node = node;
		__entry->accounted = (s->flags & SLAB_ACCOUNT) != 0;),
	TP_printk("call_site=%pS ptr=%p bytes_req=%zu bytes_alloc=%zu gfp_flags=%lx node=%d accounted=%s",
		(void *)__entry->call_site, __entry->ptr, __entry->bytes_req, __entry->bytes_alloc,
		__entry->gfp_flags, __entry->node, __entry->accounted ? "true" : "false")
);
TRACE_EVENT(kfree,
	TP_PROTO(unsigned long call_site, const void *ptr),
	TP_ARGS(call_site, ptr),
	TP_STRUCT__entry(__field(unsigned long, call_site) __field(const void *, ptr)),
	TP_fast_assign(__entry->call_site = call_site; __entry->ptr = ptr;),
	TP_printk("call_site=%pS ptr=%p", (void *)__entry->call_site, __entry->ptr)
);
TRACE_EVENT(kmem_cache_free,
	TP_PROTO(unsigned long cs, const void *ptr, const char *name),
	TP_ARGS(cs, ptr, name),
	TP_STRUCT__entry(__field(unsigned long, call_site) __field(const void *, ptr) __string(name, name)),
	TP_fast_assign(__entry->call_site = cs; __entry->ptr = ptr; __assign_str(name, name);),
	TP_printk("call_site=%pS ptr=%p name=%s", (void *)__entry->call_site, __entry->ptr,
		__get_str(name))
);
#endif
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ev_kmem
#include <utrace/define_trace.h>
