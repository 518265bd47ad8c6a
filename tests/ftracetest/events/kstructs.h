/* SPDX-License-Identifier: MIT */
/*
 * kstructs.h - the kernel structures (Linux v6.12, the members the cases
 * name, with the kernel's names and nesting) that kprog's functions and
 * tracepoints take, so that fetch-args by name (the kernel's BTF
 * arguments, utrace's from kprog's DWARF) follow the same paths:
 * dynevent/add_remove_btfarg.tc reads s->object_size of kmem_cache_alloc,
 * $retval->name of getname_flags and p->se.group_node.next->prev of
 * sched_wakeup.
 */
#ifndef KPROG_KSTRUCTS_H
#define KPROG_KSTRUCTS_H
#include <sys/types.h>

typedef unsigned int gfp_t;

struct list_head {
	struct list_head *next, *prev;
};
struct rb_node {
	unsigned long __rb_parent_color;
	struct rb_node *rb_right, *rb_left;
};
struct load_weight {
	unsigned long weight;
	unsigned int inv_weight;
};
struct sched_entity {
	struct load_weight load;
	struct rb_node run_node;
	unsigned long deadline, min_vruntime;
	struct list_head group_node;
	unsigned int on_rq;
	unsigned long long exec_start, sum_exec_runtime, vruntime;
};
struct task_struct {
	unsigned int __state;
	int on_cpu, prio, static_prio, normal_prio;
	unsigned int cpu;
	struct sched_entity se;
	pid_t pid, tgid;
	char comm[16];
};

#define SLAB_ACCOUNT 0x04000000U
struct kmem_cache {
	unsigned int flags;
	unsigned int size;	  /* the object's size with its metadata */
	unsigned int object_size; /* the object's size */
	const char *name;
};

struct filename {
	const char *name;	/* pointer to actual string */
	const char *uptr;	/* original userland pointer */
	int refcnt;
	void *aname;
	const char iname[];
};

struct path {
	void *mnt, *dentry;
};
struct file {
	long f_count;
	unsigned int f_mode;
	struct path f_path;
	long long f_pos;
};
#endif
