/*
 * engine: the one ptrace owner, and the per-client view of a process.
 *
 * utraced traces each process once (a struct uproc, shared) and lets any
 * number of clients use it through engines, in the spirit of the kernel's
 * utrace engines: an engine has its own breakpoints, watchpoints, signal
 * filter and, per thread, its own wish (run, step or stay stopped). A thread
 * runs only when no engine holds it. Packet handlers and tracers use this
 * API only; nothing outside src/engine/ calls ptrace.
 *
 * All calls are made from the single event-loop thread. Events reach a
 * client through its engine_client callbacks, called from engine_poll()
 * (never from inside another engine_* call), so a callback may call back
 * into the engine freely.
 */
#ifndef UTRACED_ENGINE_H
#define UTRACED_ENGINE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../arch/arch.h"

struct engine;
struct tracer;

enum engine_stop_kind {
	ENGINE_STOP_SIGNAL,	    /* a signal arrived for tid: sig (host number) */
	ENGINE_STOP_SWBREAK,	    /* tid hit one of this engine's int3 breakpoints at addr */
	ENGINE_STOP_HWBREAK,	    /* tid hit one of this engine's hardware breakpoints */
	ENGINE_STOP_WATCH,	    /* watchpoint: addr, watch = ARCH_DR_WRITE/READ/ACCESS */
	ENGINE_STOP_STEP,	    /* a single-step this engine asked for finished */
	ENGINE_STOP_INTERRUPT,	    /* engine_interrupt() took effect (report as SIGINT) */
	ENGINE_STOP_ATTACHED,	    /* initial stop after attach or launch */
	ENGINE_STOP_EXITED,	    /* the process exited: status = exit code */
	ENGINE_STOP_KILLED,	    /* the process was killed by signal sig */
	ENGINE_STOP_SYSCALL_ENTRY,  /* tid entered syscall sysno (engine_catch_syscalls) */
	ENGINE_STOP_SYSCALL_RETURN, /* tid returns from syscall sysno */
	ENGINE_STOP_FORK,	    /* tid forked: child pid (engine_fork_child) */
	ENGINE_STOP_VFORK,	    /* tid vforked: child pid; the parent waits for it */
	ENGINE_STOP_VFORK_DONE,	    /* the vfork child exec'd or exited */
	ENGINE_STOP_EXEC,	    /* tid exec'd a new program (engine_exe_path) */
	ENGINE_STOP_STOPPED, /* non-stop: tid stopped as asked (engine_stop_thread), no signal */
	ENGINE_STOP_THREAD_CREATED, /* tid is a new thread, stopped (ENGINE_EVENT_THREADS) */
	ENGINE_STOP_THREAD_EXITED,  /* thread tid is gone: status (ENGINE_EVENT_THREADS) */
	ENGINE_STOP_NO_RESUMED,	    /* every thread it let run is gone (ENGINE_EVENT_NO_RESUMED) */
};

struct engine_stop {
	enum engine_stop_kind kind;
	pid_t pid;
	pid_t tid;
	int sig;
	int status;
	int watch;
	uint64_t addr;
	long sysno;
	pid_t child; /* FORK, VFORK */
};

/*
 * What an observer (a tracer such as ustrace) hears, synchronously, while
 * the thread is stopped: it may read registers and memory of ev->tid
 * (engine_regs, engine_mem_read, engine_proc_read) from inside the
 * callback. The thread goes on as soon as the callback returns, unless
 * another engine holds it: an observer never holds anything.
 */
enum engine_event_kind {
	ENGINE_EV_SYSCALL_ENTRY, /* nr, args */
	ENGINE_EV_SYSCALL_EXIT,	 /* nr, ret (negative errno on failure) */
	ENGINE_EV_SIGNAL,	 /* si: a signal is about to be delivered to tid */
	ENGINE_EV_EXITED,	 /* tid (the whole process if tid == pid) exited: status */
	ENGINE_EV_KILLED,	 /* ... was killed by signal status */
	ENGINE_EV_THREAD_NEW,	 /* tid is a new thread of pid */
	ENGINE_EV_PROC_NEW, /* ENGINE_OBSERVE_FORKS: tid forked (vforked, cloned) process child */
	/*
	 * ENGINE_OBSERVE_SIGNALS: tid entered a group-stop (job control) by
	 * signal status. While only observers trace the process it stays
	 * stopped (PTRACE_LISTEN) until a SIGCONT, as under strace.
	 */
	ENGINE_EV_STOPPED,
	ENGINE_EV_EXITING, /* tid is on its way out (exit, a fatal signal, another's exec) */
	/* a thread other than the leader exec'd: old_tid goes by tid (the leader's) now */
	ENGINE_EV_TID_CHANGED,
};

struct engine_event {
	enum engine_event_kind kind;
	pid_t pid;
	pid_t tid;
	long nr;
	uint64_t args[6];
	int64_t ret;
	const siginfo_t *si;
	int status;
	const struct arch_desc *arch; /* the thread's personality (i386 or amd64 numbers) */
	/* ENGINE_OBSERVE_STIME: system CPU time of the process (wait4's rusage) */
	int64_t stime_ns;
	struct engine *engine; /* the observer told: read tid's memory through it */
	/*
	 * PROC_NEW: the observer's own engine on the child, observing as
	 * ev->engine does; it is the client's to detach (once its on_stop
	 * says the child exited, or when leaving).
	 */
	struct engine *child;
	pid_t child_pid;
	pid_t old_tid; /* TID_CHANGED */
};

struct agent_record;
struct agent_trace_record;

/* What a client gives its engine. */
struct engine_client {
	void *ctx;
	/*
	 * The process is stopped for this engine (all threads held by it), or
	 * has exited/was killed (then the engine is dead: only engine_detach()
	 * is still allowed). Called once per engine_resume().
	 */
	void (*on_stop)(void *ctx, const struct engine_stop *stop);
	/* Observers only (see engine_observe); NULL for stop-mode clients. */
	void (*on_event)(void *ctx, const struct engine_event *ev);
	/*
	 * Optional: tid hit this engine's software breakpoint at addr, and
	 * this is asked at once, tid stopped, the other threads running on;
	 * the callback may read tid's registers and memory, and nothing
	 * else. True: the engine has nothing to report (its condition is
	 * false, or its dprintf ran), and tid goes on past the breakpoint
	 * (out of line: no other thread is stopped for it).
	 */
	bool (*bp_goes_on)(void *ctx, struct engine *e, pid_t tid, uint64_t addr);
	/*
	 * A printf that the in-process agent recorded for e's breakpoint
	 * (agent-style dprintf, engine_bp_conds()), read back from the
	 * program (src/agent/agent.h: which command, its arguments, its %s
	 * strings). Called in each thread's order, from any stop of the
	 * process or a timer; then once with r NULL: that batch is over
	 * (write out what waits).
	 */
	void (*bp_printed)(void *ctx, struct engine *e, const struct agent_record *r);
	/*
	 * A trace frame that the in-process agent collected at e's fast
	 * tracepoint (engine_bp_trace()), read back from the program
	 * (src/agent/agent.h), exactly once; in each thread's order, from
	 * any stop of the process, a timer or engine_trace_drain(); then
	 * once with r NULL: that batch is over.
	 */
	void (*bp_collected)(void *ctx, struct engine *e, const struct agent_trace_record *r);
	/*
	 * Optional: true while the client has more of bp_printed's text queued
	 * for its reader than it wants to hold. Meanwhile the rings are not
	 * emptied on the timer, and a thread that traps at a patched breakpoint
	 * of e's (its ring full, or its condition true) waits at the
	 * breakpoint, stopped, and runs it again once the client has room:
	 * the program waits for the reader, nothing is dropped.
	 */
	bool (*out_busy)(void *ctx, struct engine *e);
	const char *name; /* endpoint description, for `engines` listings */
	pid_t peer_pid;	  /* client process, when known (else 0) */
	uid_t peer_uid;
};

/* The tracer: all traced processes. One per utraced daemon. */
struct tracer *tracer_new(void);
/*
 * Every engine of every process leaves, as engine_detach() (its owner
 * must not use it afterwards): the processes run on as they were found.
 * The host's last call before tracer_free().
 */
void engine_detach_all(struct tracer *t);
/* The tracer freed, once engine_detach_all() has run: the processes still being let go go now. */
void tracer_free(struct tracer *t);
/*
 * How long an attach waits for its threads to stop; then it fails
 * (-ETIMEDOUT) and the threads still running are let go at their next
 * stop (leaving.c). The detach of a process's last engine lets its running
 * threads go the same way at once (it waits at most 100 ms of it only for
 * threads in the out-of-line step-over); an attach of a process that still has such
 * threads fails (-EAGAIN) until they have gone. 0, the default: as long
 * as it takes, as gdbserver and strace do.
 */
void tracer_set_stop_timeout(struct tracer *t, int ms);
/*
 * On a fatal signal in this process (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGABRT), put every breakpoint's bytes back and detach every thread of
 * t before dying of it (crash.c).
 */
void tracer_crash_guard(struct tracer *t);
/*
 * Test builds only (-DUTRACED_CRASH_POINTS): crash here on demand, or
 * sleep here to widen a race's window on demand (crash.c).
 */
#ifdef UTRACED_CRASH_POINTS
void crash_point(const char *name);
void test_delay(const char *name);
#define CRASH_POINT(name) crash_point(name)
#define TEST_DELAY(name)  test_delay(name)
#else
#define CRASH_POINT(name) ((void)0)
#define TEST_DELAY(name)  ((void)0)
#endif
/*
 * Step over breakpoints nobody reports out of line (on, the default) or
 * in place with every other thread held (off: the old way, for
 * comparison). See xol.c.
 */
void tracer_set_xol(struct tracer *t, bool on);
/*
 * Breakpoint conditions evaluated inside the traced process by utraced's
 * in-process agent, a false one costing no stop (on, the default; needs
 * the out-of-line step-over), or by utraced at each hit. See patch.c.
 */
void tracer_set_agent(struct tracer *t, bool on);

/* fd to poll for readability (a signalfd for SIGCHLD); then call tracer_poll(). */
int tracer_fd(struct tracer *t);
void tracer_poll(struct tracer *t);
/*
 * Work the tracer does on time, not on a status (reading the in-process
 * agents' dprintf output, letting go of a process whose threads are slow
 * to stop): call it at each loop turn; it returns the ms
 * until it wants to be called again, -1: only after a poll.
 */
int tracer_tick(struct tracer *t);
/*
 * tracer_poll() without the poll, for a caller with nothing else to wait
 * for: block in wait4 until the next status, handle it, hand out the
 * reports. A stop costs one wait4 instead of poll, a signalfd read and
 * two wait4s. -EINTR at once if *stop is set; a signal whose handler
 * sets it (installed without SA_RESTART, unblocked) ends the wait with
 * -EINTR. As with strace, one that lands between the check and the wait
 * is seen at the next status.
 */
int tracer_wait(struct tracer *t, volatile sig_atomic_t *stop);
/* True while any process is traced. */
bool tracer_busy(struct tracer *t);
/* The traced processes: returns the count, fills at most max pids. */
size_t tracer_pids(struct tracer *t, pid_t *pids, size_t max);

#define ENGINE_LAUNCH_NO_ASLR 1u /* personality(ADDR_NO_RANDOMIZE), gdb's default */
#define ENGINE_LAUNCH_STDIO   2u /* stdin from /dev/null, stdout to our stderr (RSP on stdio) */

/*
 * --seccomp-bpf (seccomp.c): the launched program carries a seccomp filter
 * and stops only at these syscalls, x86-64 and i386 numbers; the others
 * run without a stop. The filter stays for the program's life: a process
 * that has it must stay traced (see engine_seccomp).
 */
struct engine_seccomp {
	const long *nrs64;
	size_t n64;
	const long *nrs32;
	size_t n32;
};

struct engine_launch {
	char *const *argv; /* argv[0] is looked up in PATH */
	char *const *env;  /* NULL: inherit ours */
	const char *cwd;   /* NULL: ours */
	unsigned flags;	   /* ENGINE_LAUNCH_* */
	int execs; /* exec events until the program itself runs (a shell, a wrapper: more) */
	const struct engine_seccomp *seccomp; /* NULL: stop at every syscall */
};

/* Why engine_launch() failed: one field per meaning. */
struct engine_launch_err {
	int err;      /* -errno of what failed (fork, seize, cwd, exec, filter); 0: it exited */
	bool seccomp; /* err is the seccomp filter's, refused by the kernel */
	/* it exited before it started (a shell that could not run it): its code,
	 * 128 for a signal; else -1 */
	int exit_code;
};
/*
 * Start a program under ptrace, stopped at its first instruction (after
 * the last of l->execs execs), with this engine attached and holding it.
 * NULL on failure, *why says what failed. Without seccomp_available()
 * the program runs without a filter (engine_seccomp() says which).
 */
struct engine *engine_launch(struct tracer *t, const struct engine_launch *l,
			     const struct engine_client *c, struct engine_launch_err *why);
/* Can this kernel take a seccomp filter (engine_launch's seccomp)? */
bool seccomp_available(void);
/*
 * Does e's process carry the seccomp filter? Untraced, its filtered
 * syscalls would fail with ENOSYS: whoever leaves it should end it.
 */
bool engine_seccomp(const struct engine *e);
/* ptrace stops reaped so far (all processes): evidence of what a filter saves. */
unsigned long tracer_stops(const struct tracer *t);

/*
 * Attach to process pid (joining it if this tracer already holds it)
 * without waiting: seize its threads and ask them to stop. The engine
 * is attaching until the process is stopped for it; on_stop() then
 * brings its first report, ENGINE_STOP_ATTACHED (or a signal a thread
 * was already taking, see engine_stop_report()), or the process's end.
 * A process already stopped (held by another engine) is stopped for it
 * at once: not attaching on return, and no on_stop() for that stop.
 * NULL, *err = -errno when it cannot be seized.
 */
struct engine *engine_attach_start(struct tracer *t, pid_t pid, const struct engine_client *c,
				   int *err);
bool engine_attaching(const struct engine *e);
/*
 * A non-stop attach still waiting after after_ms for threads that cannot
 * stop yet: completed now with the threads that have stopped, each held
 * for e as in non-stop, the others left running (0). Else ms to wait
 * before asking again; -1: not such an attach.
 */
int engine_attach_partial(struct engine *e, int after_ms);
/*
 * An attach under way with a thread stopped already: the registers' layout
 * taken from it (the target description may be given before the attach
 * stop, for a client that says only afterwards that it is non-stop).
 */
bool engine_attach_arch_known(struct engine *e);
/* ms before an attach still in flight should give up (the stop timeout); 0: now; -1: never */
int engine_attach_time_left(const struct engine *e);
/*
 * The same, waiting for that stop (up to the stop timeout, -ETIMEDOUT)
 * with no on_stop() for it: for a host with one client (ustrace), or
 * before the daemon serves anyone.
 */
struct engine *engine_attach(struct tracer *t, pid_t pid, const struct engine_client *c, int *err);
/*
 * Leave: drop this engine's breakpoints, watchpoints and holds; the last
 * engine out detaches ptrace and the process runs on as it was found.
 * Frees e. Works on a dead engine too.
 */
void engine_detach(struct engine *e);
/* Kill the process (SIGKILL), without waiting for its end: on_stop(KILLED) follows. */
int engine_kill(struct engine *e);

pid_t engine_pid(const struct engine *e);
const struct arch_desc *engine_arch(const struct engine *e);
bool engine_was_attached(const struct engine *e); /* attached (true) or launched (false) */
bool engine_alive(const struct engine *e);

/* Threads, in creation order. Returns the count; fills at most max tids. */
size_t engine_threads(struct engine *e, pid_t *tids, size_t max);
bool engine_thread_alive(struct engine *e, pid_t tid);
/* Thread name from /proc (comm), into out[outlen]; returns 0 or -errno. */
int engine_thread_name(struct engine *e, pid_t tid, char *out, size_t outlen);

/* Per-thread resume actions; threads not listed stay as deflt says. */
enum engine_action {
	ENGINE_HOLD, /* stay stopped (for this engine) */
	ENGINE_RUN,
	ENGINE_STEP,
};

struct engine_resume {
	pid_t tid; /* -1: every thread not otherwise listed */
	enum engine_action action;
	int sig; /* host signal to deliver, 0 = none */
};

/*
 * All-stop resume: apply actions (first match per thread wins, like vCont).
 * Threads that end up HOLD stay stopped. Only valid while the process is
 * stopped for e. on_stop() is called when it next stops for e.
 */
int engine_resume(struct engine *e, const struct engine_resume *acts, size_t n);
/*
 * Ask for a stop for this engine (^C); on_stop(INTERRUPT) follows. Asked
 * while stopped, or while another stop is being reported, it takes effect
 * at the next resume, as the SIGINT gdbserver sends would.
 */
int engine_interrupt(struct engine *e);
bool engine_stopped(const struct engine *e);
/*
 * The stop e is in: after an attach ENGINE_STOP_ATTACHED, or the
 * signal a thread was already taking (a PTRACE_ATTACH's SIGSTOP would
 * have queued behind it). False while running.
 */
bool engine_stop_report(const struct engine *e, struct engine_stop *st);
/*
 * The other threads' signals in that stop (several threads may meet one
 * at an attach): up to max into out (ENGINE_STOP_SIGNAL), how many there
 * are. Each is delivered when its thread runs, unreported.
 */
size_t engine_stop_signals(const struct engine *e, struct engine_stop *out, size_t max);
/*
 * The threads that were in a group-stop (job control) when e attached,
 * which an observer's ENGINE_EV_STOPPED did not tell: up to max into out
 * (ENGINE_STOP_SIGNAL, the stop signal), how many there are.
 */
size_t engine_group_stops(const struct engine *e, struct engine_stop *out, size_t max);

/*
 * Signals this engine does not want to stop for (gdb's QPassSignals).
 * pass[sig] for host signals 1..NSIG-1.
 */
void engine_set_pass_signals(struct engine *e, const bool pass[NSIG]);
/*
 * Before leaving: the signals e stopped for and did not resume yet are
 * delivered only where keep[sig] (gdb's QProgramSignals at a detach, as
 * gdbserver does); the others are dropped, as a "c" without signal would.
 */
void engine_keep_signals(struct engine *e, const bool keep[NSIG]);

/*
 * Syscalls this engine stops for (gdb's QCatchSyscalls): on == false none;
 * nrs == NULL every syscall; else the n numbers in nrs (the process's own
 * ABI). Stops arrive through on_stop as ENGINE_STOP_SYSCALL_ENTRY/RETURN.
 */
int engine_catch_syscalls(struct engine *e, bool on, const long *nrs, size_t n);

#define ENGINE_OBSERVE_SYSCALLS 1u /* syscall entry and exit */
#define ENGINE_OBSERVE_SIGNALS	2u
#define ENGINE_OBSERVE_STIME	4u /* ev->stime_ns of syscall events (costs a rusage per stop) */
#define ENGINE_OBSERVE_FORKS	8u /* follow fork/vfork/clone children (ENGINE_EV_PROC_NEW) */
/*
 * Make e an observer: it hears the events in mask (and always exits and
 * new threads) through client.on_event and never stops the process.
 * nrs/n filter syscalls as for engine_catch_syscalls (NULL: all). Call
 * while stopped for e, then engine_resume() everything once.
 */
int engine_observe(struct engine *e, unsigned mask, const long *nrs, size_t n);

#define ENGINE_EVENT_FORK	1u  /* ENGINE_STOP_FORK; else fork children are let go */
#define ENGINE_EVENT_VFORK	2u  /* ENGINE_STOP_VFORK and VFORK_DONE */
#define ENGINE_EVENT_EXEC	4u  /* ENGINE_STOP_EXEC; else an exec is silent */
#define ENGINE_EVENT_THREADS	8u  /* ENGINE_STOP_THREAD_CREATED and _EXITED (QThreadEvents) */
#define ENGINE_EVENT_NO_RESUMED 16u /* ENGINE_STOP_NO_RESUMED (gdb's no-resumed+) */
/*
 * Process and thread events this engine stops for (gdb's fork-events,
 * vfork-events, exec-events, QThreadEvents, no-resumed). A thread exit
 * or no-resumed stop names no live thread; all-stop engines are stopped
 * by it as by any other report.
 */
void engine_set_events(struct engine *e, unsigned mask);
/*
 * After ENGINE_STOP_FORK/VFORK: this client's engine on the child (the
 * report's child pid), made at the fork with the same engine_client and
 * stopped for it (the child runs only once it is resumed or detached).
 * Each child is handed over once.
 */
struct engine *engine_fork_child(struct engine *e, pid_t child);

/*
 * A client's engines on fork children (an observer's ENGINE_EV_PROC_NEW),
 * by pid (engine_kids.c). add: false when out of memory (the child is then
 * left to its engine, which only observes; it goes with the tracer). drop:
 * pid's process ended, its engine leaves; false if pid is not there.
 * leave: every engine leaves, the children run on; the list is emptied.
 */
struct engine_kids {
	struct engine_kid {
		struct engine *e;
		pid_t pid;
	} * v;
	size_t n, cap;
};
bool engine_kids_add(struct engine_kids *k, struct engine *e, pid_t pid);
bool engine_kids_drop(struct engine_kids *k, pid_t pid);
void engine_kids_leave(struct engine_kids *k);

/*
 * Non-stop (gdb's QNonStop:1): threads stop and run one by one. Each
 * event stops only its thread for this engine, and on_stop() is called
 * once per stopped thread; engine_resume() then lets go of the threads it
 * names and leaves the others as they are. Switch on while stopped for e
 * (every thread then counts as stopped for it); switch off only when every
 * thread is stopped for it.
 */
int engine_set_nonstop(struct engine *e, bool on);
bool engine_nonstop(const struct engine *e);
/* Non-stop: stop tid (-1: every thread) for e; ctrlc reports SIGINT. All-stop: a ^C. */
int engine_stop_thread(struct engine *e, pid_t tid, bool ctrlc);
/* Is tid stopped for e (non-stop: that thread; all-stop: the whole process)? */
bool engine_thread_stopped(struct engine *e, pid_t tid);

/* Memory. Reads never show breakpoint bytes; writes keep them. */
ssize_t engine_mem_read(struct engine *e, uint64_t addr, void *buf, size_t len);
ssize_t engine_mem_write(struct engine *e, uint64_t addr, const void *buf, size_t len);

/*
 * Registers of a stopped thread: a pointer to the cached raw state, valid
 * until the thread resumes. After changing it, call engine_regs_store()
 * with the ARCH_RS_* bits touched; it writes through to the thread.
 */
int engine_regs(struct engine *e, pid_t tid, struct arch_regs **out);
/* The same, only the ARCH_RS_* sets asked for read in (the others may be stale). */
int engine_regs_of(struct engine *e, pid_t tid, unsigned sets, struct arch_regs **out);
int engine_regs_store(struct engine *e, pid_t tid, unsigned which);
/* The program counter of a stopped thread (general registers only: cheap). */
int engine_pc(struct engine *e, pid_t tid, uint64_t *pc);

int engine_siginfo_get(struct engine *e, pid_t tid, siginfo_t *si);
int engine_siginfo_set(struct engine *e, pid_t tid, const siginfo_t *si);

/* Breakpoints and watchpoints of this engine. 0 or -errno (-ENOSPC: no debug register). */
enum engine_bp_type {
	ENGINE_BP_SW,
	ENGINE_BP_HW,
	ENGINE_BP_WRITE,
	ENGINE_BP_READ,
	ENGINE_BP_ACCESS,
};
int engine_bp_insert(struct engine *e, enum engine_bp_type type, uint64_t addr, int len);
int engine_bp_remove(struct engine *e, enum engine_bp_type type, uint64_t addr, int len);
/* Steps over breakpoints of e's process made by utraced itself (xol.c), since its last exec. */
struct engine_xol_stats {
	unsigned long runs;    /* out of line: one stop, no other thread held */
	unsigned long inplace; /* in place instead, every other thread held */
	unsigned long caught;  /* threads stopped inside a slot or trampoline and moved back */
	const char *last_why;  /* why the last in-place one could not run out of line */
	/* breakpoints whose conditions the in-process agent evaluates (patch.c) */
	unsigned long patched;		/* made a jmp to their trampoline */
	unsigned long unpatched;	/* tried, left an int3 */
	const char *last_unpatched_why; /* ... the last one's reason */
	unsigned long out_lines;	/* dprintf lines the agent recorded (patch_out.c) */
	unsigned long out_lost;		/* ... batches cut short: a record that did not parse */
	unsigned long out_waits;	/* traps held while a client's output was backed up */
	unsigned long lazy_removed;	/* patched breakpoints removed with their jmp kept */
	unsigned long stop_alls;	/* times every running thread was interrupted */
	unsigned long trace_patched;	/* fast tracepoints collected in the process */
	unsigned long trace_unpatched;	/* ... left as traps (collected by utraced) */
	const char *last_trace_unpatched_why; /* ... the last one's reason */
	unsigned long trace_frames;	      /* trace frames the agent recorded */
};
void engine_xol_stats(struct engine *e, struct engine_xol_stats *out);
/*
 * The conditions and commands (agent bytecode, as in the Z packet) of
 * e's software breakpoint at addr, for the in-process agent; none clears
 * them. A hit where the conditions are all false then costs no stop once
 * the breakpoint is patched (patch.c); a true one is reported as usual,
 * and e evaluates them again itself (bp_goes_on). With commands (printf:
 * agent-style dprintf) a true hit records them in the process instead,
 * and e gets them through bp_printed, with no stop. Returns 0, -ENOENT
 * (no such breakpoint of e), -E2BIG or -ENOMEM.
 */
struct agent_expr;
int engine_bp_conds(struct engine *e, uint64_t addr, const struct agent_expr *conds, size_t n,
		    const struct agent_expr *cmds, size_t ncmds);
/*
 * A fast tracepoint at e's software breakpoint addr: the in-process agent
 * runs its condition (n: 0 or 1) and, when true, collects a frame: the
 * registers (t->regs), then acts (agent expressions whose trace opcodes
 * collect memory). The frame is recorded in the process with no stop and
 * handed to e's client through bp_collected. Whatever the agent cannot do
 * (a trace state variable, a fault, the pass count or the buffer's space
 * used up) traps as the breakpoint, and the client collects that hit
 * itself (bp_goes_on). A breakpoint that cannot be patched stays a trap
 * (engine_xol_stats: trace_unpatched). Returns as engine_bp_conds().
 */
struct engine_trace {
	unsigned tpnum;
	uint32_t regs_len; /* the client's size of a register block, as the agent costs it */
	bool regs;	   /* collect the registers */
	bool fpstate; /* ... the x87/vector ones too (where the agent can: AGENT_PROG_FPSTATE) */
	int64_t pass_left; /* hits the agent may collect, at most; < 0: no pass count */
};
int engine_bp_trace(struct engine *e, uint64_t addr, const struct agent_expr *cond, size_t n,
		    const struct agent_expr *acts, size_t nacts, const struct engine_trace *t);
/*
 * The space e's client has left for the agent's frames (from now on, in
 * bytes as reserved by the agent: a frame's blocks plus 6); 0 stops the
 * agent collecting (the hits trap).
 */
void engine_trace_budget(struct engine *e, int64_t free_bytes);
/* Hand every frame the agent recorded so far to the clients (bp_collected) now. */
void engine_trace_drain(struct engine *e);
/* Is the instruction under our breakpoint at addr itself a trap (a "permanent" breakpoint)? */
bool engine_bp_permanent(struct engine *e, uint64_t addr);

/* Whole /proc/PID/<name> file (auxv, cmdline, maps ...), malloc'ed into *out. */
int engine_proc_read(struct engine *e, const char *name, char **out, size_t *len);
/* Absolute path of the executable. */
int engine_exe_path(struct engine *e, char *out, size_t outlen);

/*
 * Read-only views of the engines on a process (engine_info.c), for
 * listings such as the FUSE `engines` file. Nothing here changes state;
 * pointers in the results (name) live as long as the engine.
 */
struct engine_info {
	int slot;	  /* the engine's number on this process (0..63) */
	const char *name; /* client.name: its endpoint ("gdb", "fuse", ...) */
	pid_t peer_pid;	  /* client process, 0 when unknown */
	uid_t peer_uid;
	bool stopped;	     /* the process is stopped for it (else running for it) */
	bool observer;	     /* a tracer that hears events and never stops anything */
	bool dead;	     /* the process is gone and the client has not left yet */
	size_t nbps;	     /* breakpoints and watchpoints it owns (engine_info_bps) */
	size_t nheld;	     /* threads it keeps stopped while the others run */
	int npass;	     /* signals it lets through without stopping */
	bool catch_syscalls; /* stops at (or observes) syscalls ... */
	bool catch_all;	     /* ... all of them, else the engine_info_syscalls() ones */
};

/* The engines on pid: returns their count (0 when t does not hold pid); fills at most max. */
size_t engine_info_list(struct tracer *t, pid_t pid, struct engine_info *out, size_t max);

struct engine_info_bp {
	enum engine_bp_type type;
	uint64_t addr;
	int len; /* watched bytes (0 for software breakpoints) */
};

/* Breakpoints, then watchpoints, of engine slot on pid: the count; fills at most max. */
size_t engine_info_bps(struct tracer *t, pid_t pid, int slot, struct engine_info_bp *out,
		       size_t max);
/* The syscall numbers engine slot on pid catches (none when catch_all): count, fills max. */
size_t engine_info_syscalls(struct tracer *t, pid_t pid, int slot, long *out, size_t max);

/*
 * Back-pressure for observers (observe_hold.c). From inside on_event, an
 * observer whose reader is behind may keep the event's thread stopped
 * when the callback returns (a hold, like a stop-mode engine's); it lets
 * go of every thread it holds with engine_observe_release(). Only the
 * threads that make events wait; the others and every other engine go on.
 */
int engine_observe_hold(struct engine *e, pid_t tid);
/*
 * From an observer's syscall event: tid gets sig when it resumes (as a
 * tracer's restart signal: si_code SI_KERNEL). 0, or -errno.
 */
int engine_observe_signal(struct engine *e, pid_t tid, int sig);
void engine_observe_release(struct engine *e);

#endif
