/* SPDX-License-Identifier: MIT */
/*
 * <utrace/tracepoint_decl.h> - what TRACE_EVENT, DECLARE_EVENT_CLASS and
 * DEFINE_EVENT mean outside define_trace.h's re-reads: declarations of the
 * keys and the inline trace_<name>() functions.  No include guard on
 * purpose: tracepoint.h includes it first, define_trace.h again at its end
 * to restore these meanings.
 */
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
#undef TRACE_EVENT
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args)                                               \
	__UTRACE_DECLARE_EVENT(name, PARAMS(proto), PARAMS(args))
#define TRACE_EVENT(name, proto, args, tstruct, assign, print)                                  \
	__UTRACE_TRACE_EVENT(name, PARAMS(proto), PARAMS(args), PARAMS(tstruct), PARAMS(assign), \
			     PARAMS(print))
