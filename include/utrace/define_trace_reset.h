/* SPDX-License-Identifier: MIT */
/*
 * <utrace/define_trace_reset.h> - ends one stage of define_trace.h: the
 * entry and event macros a stage defined are undefined, so the next stage
 * can define them again.  No include guard on purpose: it is included once
 * per stage.
 */
#undef __field
#undef __field_ext
#undef __array
#undef __string
#undef __dynamic_array
#undef DECLARE_EVENT_CLASS
#undef DEFINE_EVENT
