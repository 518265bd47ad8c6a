/* SPDX-License-Identifier: MIT */
/*
 * ftrace_formats.c - the kernel's texts for its ring buffer's event
 * header and its ftrace events (lib/events/ftrace_formats.h), as Linux
 * 6.18 prints them on x86-64 (kernel/trace/trace_entries.h through
 * trace_export.c; header_event: ring_buffer_print_entry_header).
 *
 * Design: the texts are constant, so they are data: one table that
 * lib/tracefs serves as events/ftrace/ and lib/export's trace.dat header
 * takes its formats from, so that both say the same as the kernel.
 */
#include <string.h>

#include "lib/events/ftrace_formats.h"

const char utrace_ftrace_header_event[] = "# compressed entry header\n"
					  "\ttype_len    :    5 bits\n"
					  "\ttime_delta  :   27 bits\n"
					  "\tarray       :   32 bits\n"
					  "\n"
					  "\tpadding     : type == 29\n"
					  "\ttime_extend : type == 30\n"
					  "\ttime_stamp : type == 31\n"
					  "\tdata max type_len  == 28\n";

static const struct utrace_ftrace_format formats[] = {
    {"bprint", false, 6,
     "name: bprint\n"
     "ID: 6\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
     "\tfield:const char * fmt;\toffset:16;\tsize:8;\tsigned:0;\n"
     "\tfield:u32 buf[];\toffset:24;\tsize:0;\tsigned:0;\n"
     "\n"
     "print fmt: \"%ps: %s\", (void *)REC->ip, REC->fmt\n"},
    {"bputs", false, 15,
     "name: bputs\n"
     "ID: 15\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
     "\tfield:const char * str;\toffset:16;\tsize:8;\tsigned:0;\n"
     "\n"
     "print fmt: \"%ps: %s\", (void *)REC->ip, REC->str\n"},
    {"branch", false, 9,
     "name: branch\n"
     "ID: 9\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned int line;\toffset:8;\tsize:4;\tsigned:0;\n"
     "\tfield:char func[31];\toffset:12;\tsize:31;\tsigned:0;\n"
     "\tfield:char file[21];\toffset:43;\tsize:21;\tsigned:0;\n"
     "\tfield:char correct;\toffset:64;\tsize:1;\tsigned:0;\n"
     "\tfield:char constant;\toffset:65;\tsize:1;\tsigned:0;\n"
     "\n"
     "print fmt: \"%u:%s:%s (%u)%s\", REC->line, REC->func, REC->file, REC->correct, REC->constant "
     "? \" CONSTANT\" : \"\"\n"},
    {"context_switch", false, 2,
     "name: context_switch\n"
     "ID: 2\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned int prev_pid;\toffset:8;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned int next_pid;\toffset:12;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned int next_cpu;\toffset:16;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned char prev_prio;\toffset:20;\tsize:1;\tsigned:0;\n"
     "\tfield:unsigned char prev_state;\toffset:21;\tsize:1;\tsigned:0;\n"
     "\tfield:unsigned char next_prio;\toffset:22;\tsize:1;\tsigned:0;\n"
     "\tfield:unsigned char next_state;\toffset:23;\tsize:1;\tsigned:0;\n"
     "\n"
     "print fmt: \"%u:%u:%u  ==> %u:%u:%u [%03u]\", REC->prev_pid, REC->prev_prio, "
     "REC->prev_state, REC->next_pid, REC->next_prio, REC->next_state, REC->next_cpu\n"},
    {"func_repeats", false, 20,
     "name: func_repeats\n"
     "ID: 20\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
     "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
     "\tfield:u16 count;\toffset:24;\tsize:2;\tsigned:0;\n"
     "\tfield:u16 top_delta_ts;\toffset:26;\tsize:2;\tsigned:0;\n"
     "\tfield:u32 bottom_delta_ts;\toffset:28;\tsize:4;\tsigned:0;\n"
     "\n"
     "print fmt: \" %ps <-%ps\\t(repeats:%u  delta: -%llu)\", (void *)REC->ip, (void "
     "*)REC->parent_ip, REC->count, (((u64)(REC)->top_delta_ts << 32) | (REC)->bottom_delta_ts)\n"},
    {"funcgraph_entry", false, 11,
     "name: funcgraph_entry\n"
     "ID: 11\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
     "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n"
     "\n"
     "print fmt: \"--> %ps (%u)\", (void *)REC->func, REC->depth\n"},
    {"funcgraph_exit", false, 10,
     "name: funcgraph_exit\n"
     "ID: 10\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned long func;\toffset:8;\tsize:8;\tsigned:0;\n"
     "\tfield:unsigned int depth;\toffset:16;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned int overrun;\toffset:20;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned long long calltime;\toffset:24;\tsize:8;\tsigned:0;\n"
     "\tfield:unsigned long long rettime;\toffset:32;\tsize:8;\tsigned:0;\n"
     "\n"
     "print fmt: \"<-- %ps (%u) (start: %llx  end: %llx) over: %u\", (void *)REC->func, "
     "REC->depth, REC->calltime, REC->rettime, REC->depth\n"},
    {"function", true, 1,
     "name: function\n"
     "ID: 1\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
     "\tfield:unsigned long parent_ip;\toffset:16;\tsize:8;\tsigned:0;\n"
     "\tfield:unsigned long args[];\toffset:24;\tsize:0;\tsigned:0;\n"
     "\n"
     "print fmt: \" %ps <-- %ps\", (void *)REC->ip, (void *)REC->parent_ip\n"},
    {"hwlat", false, 16,
     "name: hwlat\n"
     "ID: 16\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:u64 duration;\toffset:8;\tsize:8;\tsigned:0;\n"
     "\tfield:u64 outer_duration;\toffset:16;\tsize:8;\tsigned:0;\n"
     "\tfield:u64 nmi_total_ts;\toffset:24;\tsize:8;\tsigned:0;\n"
     "\tfield:s64 tv_sec;\toffset:32;\tsize:8;\tsigned:1;\n"
     "\tfield:long tv_nsec;\toffset:40;\tsize:8;\tsigned:1;\n"
     "\tfield:unsigned int nmi_count;\toffset:48;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned int seqnum;\toffset:52;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned int count;\toffset:56;\tsize:4;\tsigned:0;\n"
     "\n"
     "print fmt: "
     "\"cnt:%u\\tts:%010llu.%010lu\\tinner:%llu\\touter:%llu\\tcount:%d\\tnmi-ts:%llu\\tnmi-count:%"
     "u\\n\", REC->seqnum, REC->tv_sec, REC->tv_nsec, REC->duration, REC->outer_duration, "
     "REC->count, REC->nmi_total_ts, REC->nmi_count\n"},
    {"kernel_stack", false, 4,
     "name: kernel_stack\n"
     "ID: 4\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS "\tfield:int size;\toffset:8;\tsize:4;\tsigned:1;\n"
     "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"
     "\n"
     "print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" "
     "\"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], (void "
     "*)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], (void *)REC->caller[5], "
     "(void *)REC->caller[6], (void *)REC->caller[7]\n"},
    {"mmiotrace_map", false, 8,
     "name: mmiotrace_map\n"
     "ID: 8\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:resource_size_t phys;\toffset:8;\tsize:8;\tsigned:0;\n"
     "\tfield:unsigned long virt;\toffset:16;\tsize:8;\tsigned:0;\n"
     "\tfield:unsigned long len;\toffset:24;\tsize:8;\tsigned:0;\n"
     "\tfield:int map_id;\toffset:32;\tsize:4;\tsigned:1;\n"
     "\tfield:unsigned char opcode;\toffset:36;\tsize:1;\tsigned:0;\n"
     "\n"
     "print fmt: \"%lx %lx %lx %d %x\", (unsigned long)REC->phys, REC->virt, REC->len, "
     "REC->map_id, REC->opcode\n"},
    {"mmiotrace_rw", false, 7,
     "name: mmiotrace_rw\n"
     "ID: 7\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:resource_size_t phys;\toffset:8;\tsize:8;\tsigned:0;\n"
     "\tfield:unsigned long value;\toffset:16;\tsize:8;\tsigned:0;\n"
     "\tfield:unsigned long pc;\toffset:24;\tsize:8;\tsigned:0;\n"
     "\tfield:int map_id;\toffset:32;\tsize:4;\tsigned:1;\n"
     "\tfield:unsigned char opcode;\toffset:36;\tsize:1;\tsigned:0;\n"
     "\tfield:unsigned char width;\toffset:37;\tsize:1;\tsigned:0;\n"
     "\n"
     "print fmt: \"%lx %lx %lx %d %x %x\", (unsigned long)REC->phys, REC->value, REC->pc, "
     "REC->map_id, REC->opcode, REC->width\n"},
    {"osnoise", false, 17,
     "name: osnoise\n"
     "ID: 17\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS "\tfield:u64 noise;\toffset:8;\tsize:8;\tsigned:0;\n"
     "\tfield:u64 runtime;\toffset:16;\tsize:8;\tsigned:0;\n"
     "\tfield:u64 max_sample;\toffset:24;\tsize:8;\tsigned:0;\n"
     "\tfield:unsigned int hw_count;\toffset:32;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned int nmi_count;\toffset:36;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned int irq_count;\toffset:40;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned int softirq_count;\toffset:44;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned int thread_count;\toffset:48;\tsize:4;\tsigned:0;\n"
     "\n"
     "print fmt: "
     "\"noise:%llu\\tmax_sample:%llu\\thw:%u\\tnmi:%u\\tirq:%u\\tsoftirq:%u\\tthread:%u\\n\", "
     "REC->noise, REC->max_sample, REC->hw_count, REC->nmi_count, REC->irq_count, "
     "REC->softirq_count, REC->thread_count\n"},
    {"print", true, 5,
     "name: print\n"
     "ID: 5\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned long ip;\toffset:8;\tsize:8;\tsigned:0;\n"
     "\tfield:char buf[];\toffset:16;\tsize:0;\tsigned:0;\n"
     "\n"
     "print fmt: \"%ps: %s\", (void *)REC->ip, REC->buf\n"},
    {"raw_data", false, 19,
     "name: raw_data\n"
     "ID: 19\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned int id;\toffset:8;\tsize:4;\tsigned:0;\n"
     "\tfield:char buf[];\toffset:12;\tsize:0;\tsigned:0;\n"
     "\n"
     "print fmt: \"id:%04x %08x\", REC->id, (int)REC->buf[0]\n"},
    {"timerlat", false, 18,
     "name: timerlat\n"
     "ID: 18\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned int seqnum;\toffset:8;\tsize:4;\tsigned:0;\n"
     "\tfield:int context;\toffset:12;\tsize:4;\tsigned:1;\n"
     "\tfield:u64 timer_latency;\toffset:16;\tsize:8;\tsigned:0;\n"
     "\n"
     "print fmt: \"seq:%u\\tcontext:%d\\ttimer_latency:%llu\\n\", REC->seqnum, REC->context, "
     "REC->timer_latency\n"},
    {"user_stack", false, 13,
     "name: user_stack\n"
     "ID: 13\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned int tgid;\toffset:8;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned long caller[8];\toffset:16;\tsize:64;\tsigned:0;\n"
     "\n"
     "print fmt: \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" \"\\t=> %ps\\n\\t=> %ps\\n\\t=> %ps\\n\" "
     "\"\\t=> %ps\\n\\t=> %ps\\n\", (void *)REC->caller[0], (void *)REC->caller[1], (void "
     "*)REC->caller[2], (void *)REC->caller[3], (void *)REC->caller[4], (void *)REC->caller[5], "
     "(void *)REC->caller[6], (void *)REC->caller[7]\n"},
    {"wakeup", false, 3,
     "name: wakeup\n"
     "ID: 3\n"
     "format:\n" UTRACE_FTRACE_COMMON_FIELDS
     "\tfield:unsigned int prev_pid;\toffset:8;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned int next_pid;\toffset:12;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned int next_cpu;\toffset:16;\tsize:4;\tsigned:0;\n"
     "\tfield:unsigned char prev_prio;\toffset:20;\tsize:1;\tsigned:0;\n"
     "\tfield:unsigned char prev_state;\toffset:21;\tsize:1;\tsigned:0;\n"
     "\tfield:unsigned char next_prio;\toffset:22;\tsize:1;\tsigned:0;\n"
     "\tfield:unsigned char next_state;\toffset:23;\tsize:1;\tsigned:0;\n"
     "\n"
     "print fmt: \"%u:%u:%u  ==+ %u:%u:%u [%03u]\", REC->prev_pid, REC->prev_prio, "
     "REC->prev_state, REC->next_pid, REC->next_prio, REC->next_state, REC->next_cpu\n"},
};

const struct utrace_ftrace_format *utrace_ftrace_format_get(size_t i)
{
	return i < sizeof(formats) / sizeof(formats[0]) ? &formats[i] : NULL;
}

const struct utrace_ftrace_format *utrace_ftrace_format_find(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}
