/* SPDX-License-Identifier: MIT */
/*
 * An allocator that holds its lock across fork(), as Chromium's
 * PartitionAlloc does: malloc and free are the program's own, under one
 * mutex; a fork handler registered from main takes the mutex before the
 * fork and releases it in the parent and in the child.  A fork handler
 * registered earlier (utrace's) that calls malloc in the child waits for
 * a lock nobody will release.  Prints what the children returned.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t heap_lock = PTHREAD_MUTEX_INITIALIZER;
static char *heap, *heap_end;

static void *heap_take(size_t n)
{
	char *p;

	n = (n + 15) & ~(size_t)15;
	if (!heap) {
		heap = mmap(NULL, 64 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		heap_end = heap + (64 << 20);
	}
	if (heap == MAP_FAILED || heap_end - heap < (long)n + 16)
		return NULL;
	p = heap + 16;
	((size_t *)heap)[0] = n;
	heap += n + 16;
	return p;
}

void *malloc(size_t n)
{
	void *p;

	pthread_mutex_lock(&heap_lock);
	p = heap_take(n);
	pthread_mutex_unlock(&heap_lock);
	return p;
}

void free(void *p) { (void)p; }

/* never reused memory of a fresh mapping: zero already (and no memset,
 * which the compiler would turn back into a call of calloc) */
void *calloc(size_t a, size_t b) { return malloc(a * b); }

void *realloc(void *old, size_t n)
{
	void *p = malloc(n);

	if (p && old)
		memcpy(p, old, ((size_t *)old)[-2] < n ? ((size_t *)old)[-2] : n);
	return p;
}

static void lock_heap(void) { pthread_mutex_lock(&heap_lock); }
static void unlock_heap(void) { pthread_mutex_unlock(&heap_lock); }

__attribute__((noinline)) int child_work(int i)
{
	char *s = malloc(64);

	snprintf(s, 64, "child %d", i);
	return (int)strlen(s) + i;
}

int main(void)
{
	int sum = 0;

	pthread_atfork(lock_heap, unlock_heap, unlock_heap);
	for (int i = 0; i < 20; i++) {
		int st;
		pid_t pid = fork();

		if (pid == 0)
			_exit(child_work(i));
		if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
			return 1;
		sum += WEXITSTATUS(st);
	}
	printf("children returned %d\n", sum);
	return 0;
}
