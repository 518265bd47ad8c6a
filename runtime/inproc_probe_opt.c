/* SPDX-License-Identifier: MIT */
/*
 * inproc_probe_opt.c - turning a mid-function int3 probe into a `jmp detour`
 * while other threads run (the kernel's optimize_kprobe, which waits for
 * RCU-tasks first).
 *
 * A jmp replaces the 5+ bytes [addr, hi) of whole instructions.  Writing
 * it is safe once no thread can ever execute from [addr+1, hi) again: a
 * thread stopped there would resume in the middle of the jmp's rel32.
 * inproc_probes.c registers such a probe as an int3 (written and every core
 * synced) and queues it here; a helper thread then proves the condition:
 *
 *   1. With the int3 in place, a thread gets into [addr+1, hi) only by
 *      falling through from addr (it traps and resumes in the slot
 *      instead), by a branch into it (lib/probes/inproc_probe_insn.c refuses
 *      such functions, exception landing pads included), by a return
 *      into it (it holds no call: refused too, so no return address, nor
 *      a setjmp/getcontext saved by a call, can point into it) or by a
 *      sigreturn to a signal frame saved there.
 *   2. So a thread that is once seen outside the range, with no signal
 *      frame in its stack pointing into it, never enters it again.
 *      Threads created after step 1 start outside, with fresh stacks.
 *   3. Each thread is seen so, and none is interrupted for it (a
 *      signal would end its nanosleep, poll, ... with EINTR, even with
 *      SA_RESTART): a round lists /proc/self/task, and each other thread
 *      is seen one of two ways.  Blocked (in a system call, a page
 *      fault, a stop), the kernel gives its user SP and PC in
 *      /proc/self/task/TID/syscall (read while it stays off the CPU);
 *      the helper checks the PC and scans every word of its stack from
 *      SP to the end of that mapping (read from /proc/self/maps before
 *      the round) for a saved RIP in a range, loading through
 *      utrace_fetch_load (a stale map gives a fault, not a crash), then
 *      reads the file and the thread's context-switch counts again: the
 *      same, and the thread never ran meanwhile.  Running, it answers
 *      itself when it next meets one of our int3s (a hot probe's threads
 *      soon do): text_poke.c's SIGTRAP handler, once it has set where
 *      the thread goes on (never back into a range), shows it the
 *      ucontext, and the same check runs on the interrupted RSP.
 *      Scanning every word is conservative: a stray value only delays
 *      the jmp.  A thread whose stack cannot be bounded (interrupted on
 *      its sigaltstack, or a stack we cannot find) counts as inside.  A
 *      blocked thread on its sigaltstack is scanned there only: a frame
 *      into a range on its main stack under a handler that is on its
 *      sigaltstack and blocked is not seen (two nested signals, the
 *      first inside the range's few bytes).
 *   4. A probe that no thread was inside, every thread having answered,
 *      gets its jmp with text_poke.c's int3-first protocol (byte 0 is
 *      the int3 already; membarrier(SYNC_CORE) between the steps).  A
 *      thread that trapped on the int3 meanwhile still resumes in the
 *      slot (inproc_probes.c's trap handler), which is the detour's tail.
 *      dlclose unmaps before it forgets: the probe's first 8 bytes are
 *      checked (fault-safe) to be the ones queued before the write.
 *
 * Any other outcome (a thread inside, or one not seen: running and
 * never meeting an int3 of ours, say) retries later with a growing
 * pause, at most KO_ROUNDS times; the probe then stays an int3, correct
 * and slower.
 *
 * Removal (inproc_probes.c's ipp_apply_off, run by the helper) uses the same
 * proof the other way round: once the program's bytes are back, a slot
 * is free when no thread is in it, returns into it (the detour's call to
 * its trampoline) or is in the trap handler for its int3, which would
 * send it there (rt_inproc_probe_quiesce).
 *
 * The helper, one per process with probes, blocks every signal, sends
 * none, and sleeps on the control page's ipp_gen futex (common/proto.h): a removal
 * (the recorder) or a new batch (inproc_probes.c, through ko_wake) moves it.
 * A fork()ed child has no helper until it loads an object with probes:
 * till then its probes stay int3s and removed ones stop recording but
 * keep their bytes.
 *
 * UTRACE_KPROBE_DEBUG=1 logs the probes promoted and removed (the tests
 * check that the jmps and the restores happened).
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "runtime/rt.h"

#define KO_PROBES_MAX 1024  /* waiting at once; more stay int3s */
#define KO_THREADS_MAX 4096 /* threads asked in a round; more: retry */
#define KO_MAPS_MAX 8192
#define KO_ROUNDS 60		    /* then the probe stays an int3 */
#define KO_SCAN_MAX (16u << 20)	    /* bytes of stack a handler scans */
#define KO_WAIT_NS (200 * 1000000L) /* for every thread to be seen */

int utrace_fetch_load(uint64_t addr, unsigned size, uint64_t *out) RT_HIDDEN;

__thread uint64_t rt_ipp_trapping RT_HIDDEN;

struct ko_probe {
	struct rt_poke jmp;
	uint64_t hi;	 /* end of the displaced instructions */
	uint64_t was;	 /* its first 8 bytes as queued: cc, then the program's */
	uint32_t rounds; /* tried so far */
	bool gone;	 /* its object was unloaded */
};

struct ko_map {
	uint64_t lo, hi;
};

static pthread_mutex_t ko_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ko_probe ko_p[KO_PROBES_MAX];
static size_t ko_n;
static bool ko_running, ko_debug, ko_ready;
static void (*ko_off_hook)(void); /* inproc_probe_remove.c: apply the ipp_off bits */
static uint32_t ko_applied;	  /* the ipp_gen that ko_off_hook last saw through */
static unsigned long ko_promoted, ko_kept;

/* A round: what the handlers read (static: a late handler of an old
 * round reads memory that is never freed; at worst it marks a probe
 * busy, which only delays it). */
static volatile uint8_t ko_busy[KO_PROBES_MAX];
static uint64_t ko_lo[KO_PROBES_MAX], ko_hi[KO_PROBES_MAX], ko_trap[KO_PROBES_MAX];
static size_t ko_round_n;
static uint64_t ko_min, ko_max;
static struct ko_map ko_maps[KO_MAPS_MAX];
static size_t ko_nmaps;
static uint32_t ko_gen;
static uint32_t ko_open;		  /* the round's gen while threads may answer, else 0 */
static pid_t ko_tids[KO_THREADS_MAX];	  /* the threads to see this round */
static size_t ko_ntids;
static uint64_t ko_reply[KO_THREADS_MAX]; /* gen << 1 | unknown */

/* ---- seeing a thread ------------------------------------------------- */

static void ko_mark(uint64_t v)
{
	if (v < ko_min || v >= ko_max)
		return;
	for (size_t i = 0; i < ko_round_n; i++)
		if (v >= ko_lo[i] && v < ko_hi[i])
			ko_busy[i] = 1;
}

/* Marks every range that pc, or a word of the stack from sp to the end
 * of its mapping, points into; a thread handling the int3 at ko_trap[i]
 * (its SIGTRAP frame's RIP is that + 1) would resume in range i.  trap:
 * one such word to skip (an int3 this thread is handling, which sends
 * it to its slot).  False if the stack cannot be bounded. */
static bool ko_scan(uint64_t pc, uint64_t sp, uint64_t trap)
{
	size_t lo = 0, hi = ko_nmaps;
	uint64_t v, end;

	ko_mark(pc);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ko_maps[mid].hi <= sp)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= ko_nmaps || ko_maps[lo].lo > sp || ko_maps[lo].hi - sp > KO_SCAN_MAX)
		return false;
	end = ko_maps[lo].hi;
	for (uint64_t a = sp & ~7ull; a + 8 <= end; a += 8) {
		if (utrace_fetch_load(a, 8, &v) < 0)
			return false;
		if (trap && v == trap + 1) {
			trap = 0; /* its SIGTRAP frame: it goes to the slot */
			continue;
		}
		ko_mark(v);
		for (size_t i = 0; v > 1 && i < ko_round_n; i++)
			if (ko_trap[i] && v == ko_trap[i] + 1)
				ko_busy[i] = 1; /* a trap frame that resumes in slot i */
	}
	return true;
}

/* text_poke.c's hook: a thread one of our int3s sends on (uc's RIP is
 * where it goes), seen if a round waits for it.  Signal-safe. */
static void ko_seen(void *uc_)
{
	const ucontext_t *uc = uc_;
	uint32_t gen = __atomic_load_n(&ko_open, __ATOMIC_ACQUIRE);
	uint64_t sp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
	int saved = errno;
	pid_t tid;
	size_t i = 0;
	stack_t ss;
	bool bounded;

	if (likely(!gen))
		return;
	tid = (pid_t)syscall(SYS_gettid);
	while (i < ko_ntids && ko_tids[i] != tid)
		i++;
	if (i < ko_ntids && __atomic_load_n(&ko_reply[i], __ATOMIC_ACQUIRE) >> 1 != gen) {
		/* interrupted on its sigaltstack: frames on two stacks */
		bounded = sigaltstack(NULL, &ss) == 0 &&
			  (ss.ss_flags & SS_DISABLE || sp < (uint64_t)(uintptr_t)ss.ss_sp ||
			   sp - (uint64_t)(uintptr_t)ss.ss_sp >= ss.ss_size) &&
			  ko_scan((uint64_t)uc->uc_mcontext.gregs[REG_RIP], sp, rt_ipp_trapping);
		/* the busy marks before the answer that makes them count */
		__atomic_store_n(&ko_reply[i], (uint64_t)gen << 1 | !bounded, __ATOMIC_RELEASE);
	}
	errno = saved;
}

/* "name: N" of /proc/self/task/TID/status, summed over both context
 * switch counts; -1 if the thread has gone. */
static long ko_switches(pid_t tid)
{
	char path[64], line[256];
	long n = 0, v;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1 ||
		    sscanf(line, "nonvoluntary_ctxt_switches: %ld", &v) == 1)
			n += v;
	fclose(f);
	return n;
}

/* /proc/self/task/TID/syscall into buf; false if unreadable. */
static bool ko_syscall(pid_t tid, char *buf, size_t size)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", (int)tid);
	if (!(f = fopen(path, "re")))
		return false;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	return ok;
}

/* A thread off the CPU, seen by the helper with no signal: 1 seen (its
 * marks made), 0 not now (it runs), -1 its stack cannot be bounded. */
static int ko_see_blocked(pid_t tid)
{
	char a[256], b[256];
	unsigned long long sp, pc;
	long n0 = ko_switches(tid);
	const char *w;
	bool bounded;

	if (n0 < 0)
		return 1; /* gone: it is in no range */
	if (!ko_syscall(tid, a, sizeof(a)) || !strncmp(a, "running", 7))
		return 0;
	/* "NR ARGS... SP PC" or "-1 SP PC": the last two words */
	if (!(w = strrchr(a, ' ')) || sscanf(w, " 0x%llx", &pc) != 1)
		return 0;
	while (w > a && w[-1] != ' ')
		w--;
	if (w == a || sscanf(w - 1, " 0x%llx", &sp) != 1)
		return 0;
	bounded = ko_scan(pc, sp, 0);
	if (!ko_syscall(tid, b, sizeof(b)) || strcmp(a, b) || ko_switches(tid) != n0)
		return 0; /* it ran meanwhile: what was scanned may be stale */
	return bounded ? 1 : -1;
}

/* ---- the helper ------------------------------------------------------- */

/* The process's writable mappings, sorted (the kernel lists them so). */
static void ko_read_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "re");
	char line[512], perm[8];
	unsigned long lo, hi;

	ko_nmaps = 0;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && ko_nmaps < KO_MAPS_MAX)
		if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perm) == 3 && perm[1] == 'w')
			ko_maps[ko_nmaps++] = (struct ko_map){lo, hi};
	fclose(f);
}

static void ko_pause(long ns)
{
	struct timespec ts = {ns / 1000000000L, ns % 1000000000L};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* Lists the other threads into ko_tids; false if there are too many. */
static bool ko_list(void)
{
	DIR *d = opendir("/proc/self/task");
	pid_t self = gettid();
	struct dirent *e;
	bool ok = d != NULL;

	ko_ntids = 0;
	while (ok && (e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid <= 0 || tid == self)
			continue;
		if (ko_ntids >= KO_THREADS_MAX)
			ok = false;
		else
			ko_tids[ko_ntids++] = tid;
	}
	if (d)
		closedir(d);
	return ok;
}

/* Sees every other thread (step 3); true when each was seen with a
 * bounded stack within KO_WAIT_NS. */
static bool ko_see_all(void)
{
	uint32_t gen = __atomic_add_fetch(&ko_gen, 1, __ATOMIC_ACQ_REL);
	bool ok = ko_list(), all = false;
	long waited = 0;

	for (size_t i = 0; i < ko_ntids; i++)
		ko_reply[i] = 0;
	/* the round (ranges, maps, threads) before a thread may answer */
	__atomic_store_n(&ko_open, gen, __ATOMIC_RELEASE);
	while (ok && !all && waited < KO_WAIT_NS) {
		all = true;
		for (size_t i = 0; ok && i < ko_ntids; i++) {
			uint64_t r = __atomic_load_n(&ko_reply[i], __ATOMIC_ACQUIRE);
			int seen;

			if (r >> 1 == gen) {
				ok = !(r & 1);
				continue;
			}
			if ((seen = ko_see_blocked(ko_tids[i])) < 0)
				ok = false;
			else if (seen)
				__atomic_store_n(&ko_reply[i], (uint64_t)gen << 1, __ATOMIC_RELEASE);
			else
				all = false;
		}
		if (!all) {
			ko_pause(1000000);
			waited += 1000000;
		}
	}
	__atomic_store_n(&ko_open, 0, __ATOMIC_RELEASE);
	return ok && all;
}

/* A round's ranges [lo, hi); a thread handling the int3 at trap[i] is
 * in range i too.  True when every thread answered, ko_busy[i] set for
 * each range a thread was in. */
static bool ko_round(const uint64_t *lo, const uint64_t *hi, const uint64_t *trap, size_t n)
{
	ko_min = UINT64_MAX;
	ko_max = 0;
	for (size_t i = 0; i < n; i++) {
		ko_lo[i] = lo[i];
		ko_hi[i] = hi[i];
		ko_trap[i] = trap ? trap[i] : 0;
		ko_busy[i] = 0;
		ko_min = ko_lo[i] < ko_min ? ko_lo[i] : ko_min;
		ko_max = ko_hi[i] > ko_max ? ko_hi[i] : ko_max;
	}
	ko_round_n = n;
	ko_read_maps();
	return ko_see_all();
}

/*
 * For inproc_probes.c's removal, from the helper thread (its off hook): waits
 * until no thread is in any [lo[i], hi[i]), has a signal frame or a
 * return address there, or is handling the int3 at trap[i] (it would
 * resume there).  0, or -EBUSY after KO_ROUNDS rounds.
 */
int rt_inproc_probe_quiesce(const uint64_t *lo, const uint64_t *hi, const uint64_t *trap, size_t n)
{
	for (uint32_t r = 0; r < KO_ROUNDS; r++) {
		bool clear = n <= KO_PROBES_MAX && ko_round(lo, hi, trap, n);

		for (size_t i = 0; clear && i < n; i++)
			clear = !ko_busy[i];
		if (clear)
			return 0;
		ko_pause(1000000L << (r < 6 ? r : 6));
	}
	return -EBUSY;
}

/* Whether p's bytes are still the ones queued: the object may have been
 * unloaded (forgotten since, or not yet: a dlclose that began before the
 * pin), and another mapped there. */
static bool ko_still(const struct ko_probe *p)
{
	uint64_t v;

	return utrace_fetch_load((uint64_t)(uintptr_t)p->jmp.addr, 8, &v) == 0 && v == p->was;
}

/* Writes the jmps of the probes no thread was in (all answered); keeps
 * the others for the next round, or for good after KO_ROUNDS.  The
 * objects are pinned from the check to the writes (a dlclose would unmap
 * the text between them), and ko_lock is held: an unloading object's
 * forget waits. */
static void ko_finish_round(size_t n, bool answered)
{
	struct rt_poke pokes[64];
	size_t np = 0, keep = 0;

	rt_text_pin();
	pthread_mutex_lock(&ko_lock);
	for (size_t i = 0; i < ko_n; i++) {
		struct ko_probe *p = &ko_p[i];

		if (p->gone || !ko_still(p))
			continue;
		if (i < n && answered && !ko_busy[i] && np < sizeof(pokes) / sizeof(pokes[0])) {
			pokes[np++] = p->jmp;
			continue;
		}
		if (i < n && ++p->rounds >= KO_ROUNDS) {
			ko_kept++;
			continue;
		}
		ko_p[keep++] = *p;
	}
	ko_n = keep;
	if (np && rt_text_poke_batch(pokes, np) == 0)
		ko_promoted += np;
	else
		ko_kept += np;
	pthread_mutex_unlock(&ko_lock);
	rt_text_unpin();
}

static void ko_say(void)
{
	char msg[160];

	snprintf(msg, sizeof(msg),
		 "kprobes: %lu jump-optimised with threads running, %lu kept as int3", ko_promoted,
		 ko_kept);
	rt_log(msg);
}

/* One promotion round over the first queued probes (at most 64). */
static void ko_promote(void)
{
	uint64_t lo[64], hi[64];
	unsigned long before = ko_promoted + ko_kept;
	size_t n;
	bool answered;

	pthread_mutex_lock(&ko_lock);
	n = ko_n < 64 ? ko_n : 64;
	for (size_t i = 0; i < n; i++) {
		lo[i] = (uint64_t)(uintptr_t)ko_p[i].jmp.addr + 1;
		hi[i] = ko_p[i].hi;
	}
	pthread_mutex_unlock(&ko_lock);
	if (!n)
		return;
	answered = ko_round(lo, hi, NULL, n);
	ko_finish_round(n, answered);
	if (ko_debug && ko_promoted + ko_kept != before)
		ko_say();
}

/* The helper: promotions while some are queued (a growing pause between
 * rounds), the off hook whenever ipp_gen moves; else it sleeps on it. */
static void *ko_main(void *arg)
{
	uint32_t seen = 0, r = 0;
	bool first = true;

	(void)arg;
	rt_self.state |= RT_TS_OWN; /* its library calls are ours */
	rt_own_send(UTRACE_OWN_THREAD, 0); /* its kernel events are ours */
	for (;;) {
		uint32_t g = __atomic_load_n(&rt.ctl->ipp_gen, __ATOMIC_ACQUIRE);
		long pause = 1000000L << (r < 6 ? r : 6); /* 1 to 64 ms */
		struct timespec ts = {0, pause};
		size_t left;

		if (first || g != seen) {
			seen = g;
			first = false;
			if (ko_off_hook)
				ko_off_hook();
		}
		__atomic_store_n(&ko_applied, seen, __ATOMIC_RELEASE); /* ko_fini */
		ko_promote();
		pthread_mutex_lock(&ko_lock);
		left = ko_n;
		pthread_mutex_unlock(&ko_lock);
		r = left ? r + 1 : 0;
		syscall(SYS_futex, &rt.ctl->ipp_gen, FUTEX_WAIT, seen, left ? &ts : NULL, NULL, 0);
	}
	return NULL;
}

/* UTRACE_KPROBE_DEBUG=1: the process's end waits (2 s at most) until the
 * helper has applied every removal asked so far, so that what it says is
 * complete (tests/e2e/probes.sh reads it).  Without it, nothing waits:
 * text that an exiting process gets back matters to no one. */
__attribute__((destructor)) static void ko_fini(void)
{
	for (int i = 0; ko_debug && ko_running && rt.ctl && i < 2000; i++) {
		uint32_t g = __atomic_load_n(&rt.ctl->ipp_gen, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&ko_applied, __ATOMIC_ACQUIRE) == g)
			break;
		ko_pause(1000000);
	}
}

static void ko_child(void)
{
	pthread_mutex_init(&ko_lock, NULL);
	ko_n = 0; /* no helper here: the child's probes stay int3s */
	ko_running = false;
	ko_open = 0; /* a round of its parent's: none of its threads here */
}

/* Once: threads that meet our int3s are shown to ko_seen. */
static bool ko_setup(void)
{
	const char *dbg = getenv("UTRACE_KPROBE_DEBUG");

	if (ko_ready)
		return true;
	ko_debug = dbg && *dbg == '1';
	if (pthread_atfork(NULL, NULL, ko_child) != 0)
		return false;
	rt_text_poke_seen_hook(ko_seen);
	ko_ready = true;
	return true;
}

/* A line for UTRACE_KPROBE_DEBUG=1 (the tests read what happened). */
void rt_inproc_probe_opt_say(const char *msg)
{
	if (ko_debug)
		rt_log(msg);
}

/* Wakes the helper: ipp_gen moves (the helpers of the recording's other
 * processes wake too, find nothing new and sleep again). */
static void ko_wake(void)
{
	__atomic_add_fetch(&rt.ctl->ipp_gen, 1, __ATOMIC_RELEASE);
	syscall(SYS_futex, &rt.ctl->ipp_gen, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

/* The helper thread, once this process has probes (ftrace.c's objects
 * lock held); off() applies the recording's ipp_off bits (inproc_probes.c). */
void rt_inproc_probe_opt_start(void (*off)(void))
{
	sigset_t all, old;
	pthread_t th;

	if (!rt.ctl || !ko_setup())
		return;
	pthread_mutex_lock(&ko_lock);
	if (off) /* func_patch.c starts it with none: keep inproc_probes.c's */
		ko_off_hook = off;
	if (!ko_running) {
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old); /* the helper takes no signal */
		ko_running = pthread_create(&th, NULL, ko_main, NULL) == 0;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (ko_running)
			pthread_detach(th);
	}
	pthread_mutex_unlock(&ko_lock);
}

/*
 * Probes whose int3 is in place (every core synced) and whose detour is
 * ready: jmp[i] to write at jmp[i].addr, over [addr, hi[i]).  The caller
 * holds ftrace.c's objects lock; the helper takes them once started
 * (rt_inproc_probe_opt_start).  Those that find no room stay int3s.
 */
void rt_inproc_probe_opt_queue(const struct rt_poke *jmp, const uint64_t *hi, size_t n)
{
	if (!n || !rt.ctl || !ko_setup())
		return;
	pthread_mutex_lock(&ko_lock);
	for (size_t i = 0; i < n && ko_n < KO_PROBES_MAX; i++) {
		uint64_t was;

		if (utrace_fetch_load((uint64_t)(uintptr_t)jmp[i].addr, 8, &was) == 0)
			ko_p[ko_n++] = (struct ko_probe){jmp[i], hi[i], was, 0, false};
	}
	pthread_mutex_unlock(&ko_lock);
	ko_wake();
}

/* An object unloaded: its probes are not written (a round writing some
 * now is waited for). */
void rt_inproc_probe_opt_forget(uint64_t lo, uint64_t hi)
{
	pthread_mutex_lock(&ko_lock);
	for (size_t i = 0; i < ko_n; i++)
		if ((uint64_t)(uintptr_t)ko_p[i].jmp.addr >= lo &&
		    (uint64_t)(uintptr_t)ko_p[i].jmp.addr < hi)
			ko_p[i].gone = true;
	pthread_mutex_unlock(&ko_lock);
}

/* The kernel's kprobes-optimization switch, the recording's (the control
 * page's ipp_noopt): whether a probe's jmp may be written. */
bool rt_inproc_probe_optimize(void)
{
	return !rt.ctl || !__atomic_load_n(&rt.ctl->ipp_noopt, __ATOMIC_ACQUIRE);
}

/* Whether this process has its helper (a fork's child has none until it
 * loads an object with probes). */
bool rt_inproc_probe_opt_running(void)
{
	bool running;

	pthread_mutex_lock(&ko_lock);
	running = ko_running;
	pthread_mutex_unlock(&ko_lock);
	return running;
}

bool rt_inproc_probe_opt_queued(uint64_t addr)
{
	bool queued = false;

	pthread_mutex_lock(&ko_lock);
	for (size_t i = 0; i < ko_n && !queued; i++)
		queued = (uint64_t)(uintptr_t)ko_p[i].jmp.addr == addr && !ko_p[i].gone;
	pthread_mutex_unlock(&ko_lock);
	return queued;
}
