/*
 * engine_int.h: the tracing core's private structures.
 *
 * A uproc is one traced process (the ptrace side, shared by all engines),
 * a uthread one of its threads, an engine one client's view. Only files in
 * src/engine/ include this.
 *
 * Who runs: a thread runs when it is stopped-by-us, nobody needs the whole
 * process stopped (an engine about to get a stop report, a ^C, or a step
 * over a breakpoint), no engine is stopped (an all-stop engine that saw a
 * stop holds every thread) and no engine holds that thread (vCont left it
 * out). See docs/engines.md.
 */
#ifndef UTRACED_ENGINE_INT_H
#define UTRACED_ENGINE_INT_H

#include "engine.h"
#include "../util/buf.h"

#define UPROC_MAX_ENGINES 64

#define UPROC_SEIZE_OPTIONS                                                                        \
	(PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK |   \
	 PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXIT)
#define MORIBUND_MAX 64

enum uevent_kind {
	UEV_NONE,
	UEV_SIGNAL,  /* signal-delivery-stop: sig */
	UEV_SWBREAK, /* int3 of ours at addr (pc already rewound) */
	UEV_STEP,    /* single-step finished */
	UEV_HW,	     /* debug register slot hit: addr, watch type in dr_type */
	UEV_SYSCALL, /* syscall-stop: nr, entry or return (sys_entry) */
	UEV_FORK,    /* fork/vfork (vfork set): child in addr */
	UEV_VFORK_DONE,
	UEV_EXEC,
	UEV_THREAD_NEW, /* a new thread's first stop (ENGINE_EVENT_THREADS) */
};

struct uevent {
	enum uevent_kind kind;
	int sig;
	int dr_type;
	uint64_t addr;
	bool also_step; /* a step finished together with a hw hit */
	bool sys_entry;
	bool vfork;
	long nr;
};

/* A set of syscall numbers (either ABI's numbers fit). */
#define SYSSET_BITS 1024
struct sysset {
	bool on;
	bool all;
	uint64_t bits[SYSSET_BITS / 64];
};

struct uthread {
	struct uthread *next;
	struct uproc *p;
	pid_t tid;
	bool stopped;	   /* in a ptrace-stop that we have not resumed */
	bool interrupting; /* PTRACE_INTERRUPT sent, no stop seen since */
	bool seizing;	   /* seized, its first stop not seen yet */
	bool attach_stop;  /* ... seen: our interrupt, maybe ahead of a queued signal */
	bool stepping;	   /* last resumed with PTRACE_SINGLESTEP */
	bool step_stale;   /* a step was given up: its trap may still come */
	bool step_sys;	   /* a step over a syscall insn, made with PTRACE_SYSCALL (syscall.c) */
	bool step_owed;	   /* ... whose syscall returned: the step is done, its report owed */
	bool at_bp;	   /* reported at a breakpoint: resume must step over it */
	bool dr_dirty;	   /* debug registers must be written before it runs */
	bool regs_valid;   /* regs.gp cached */
	bool regs_dirty;   /* ... and changed, not yet stored: regs_sync() before it runs */
	bool ext_valid;	   /* regs.ext cached */
	bool has_pending;
	bool in_syscall;       /* between a syscall-entry and its exit stop */
	bool user_stop;	       /* stopped on its way back to user mode, not inside a syscall */
	bool sig_stop;	       /* a signal's or a syscall's stop: a resume can carry a signal */
	int owed_sig;	       /* queued with tgkill for a stop that could not carry it */
	int group_stop;	       /* in a group-stop (job control) by this signal; 0: not */
	long sys_nr;	       /* ... of this syscall */
	struct uevent pending; /* an event not yet given to the engines */
	int64_t stime_ns;      /* its process's system time at this stop (tracer->rusage) */
	int deliver_sig;       /* signal to inject at the next resume */
	int sig_orig;	       /* the signal that arrived (deliver_sig may replace it) */
	bool sig_suppressed;   /* an engine that stopped for it said "c": not delivered */
	uint64_t sig_owners;   /* engines that stopped for deliver_sig */
	uint64_t bp_pc;	       /* where it stopped at a breakpoint (at_bp) */
	uint64_t hold_mask;    /* engines that keep this thread stopped */
	uint64_t stop_req;     /* non-stop engines that asked it to stop */
	uint64_t ctrlc_req;    /* ... with ^C (reported as SIGINT) */
	uint64_t step_mask;    /* engines that want it single-stepped */
	/* out-of-line step-over (xol.c) */
	uint64_t xol_slot;	    /* its slot's address, 0: none yet */
	uint64_t xol_for;	    /* the breakpoint whose instruction the slot holds */
	uint64_t xol_gen;	    /* ... its swbp.gen: another at that address is copied anew */
	bool xol_busy;		    /* resumed into its slot, no stop seen since */
	bool xol_step;		    /* ... single-stepped there, for an engine's step */
	bool xol_wait;		    /* stays at its breakpoint until a page is mapped */
	struct arch_xol *xol;	    /* the slot's relocation (for pc fix-ups) */
	struct xol_inject *xol_inj; /* lent to an injected syscall (xol.c) */
	bool fork_wait;		    /* held at its fork stop until the child is settled (fork.c) */
	uint64_t patch_hit;  /* stopped in this patched breakpoint's trampoline or agent call */
	bool patch_in_agent; /* ... in the agent (patch.c) */
	bool out_wait;	     /* back at its patched breakpoint until its owner's output drains */
	struct arch_regs regs;
};

/* A scratch page of out-of-line slots in the traced process (xol.c). */
struct xol_page {
	struct xol_page *next;
	uint64_t addr;
	uint64_t used; /* slots taken, one bit each */
	uint64_t len;  /* XOL_PAGE, or the agent's output region (no slots) */
	bool dontfork; /* madvise(MADV_DONTFORK) done: a fork child does not get it */
};

/* A breakpoint whose conditions the in-process agent evaluates (patch.c). */
struct bp_patch {
	uint64_t at;   /* its trampoline and program, in xol pages */
	bool applied;  /* the jmp is in memory (not the int3) */
	bool unwanted; /* back to an int3 (or nothing) at the next pass */
	unsigned ctl;  /* a fast tracepoint's pass count: its agent_trace_ctl; 0: none */
	struct arch_patch code;
};

/* One engine's program at a breakpoint (engine_bp_conds, engine_bp_trace). */
struct bp_prog {
	struct bp_prog *next;
	uint64_t owner; /* its engine's bit */
	uint8_t *code;	/* conditions then commands, in the agent's program format */
	uint32_t len;
	uint32_t ncmds;
	bool trace_on; /* a fast tracepoint's: */
	struct engine_trace trace;
};

struct swbp {
	struct swbp *next;
	uint64_t addr;
	uint64_t owners; /* engines that inserted it; 0: a patch left to undo (patch.c) */
	uint8_t orig[16];
	bool inserted;	  /* trap bytes are in memory */
	uint8_t insn_len; /* of the instruction under it, once decoded (xol.c); 0: unknown */
	uint64_t gen;	  /* p->bp_gen when made: a slot's copy is of this one (xol.c) */
	bool insert_owed; /* under a patch's jmp: goes in at the next all-stopped pass */
	/*
	 * Removed by its last owner with every thread stopped, its jmp kept
	 * (owners 0): gdb in all-stop removes every breakpoint at each stop
	 * and inserts them again at the resume. Back before the threads run,
	 * it is patched still; otherwise the patch pass of that resume (or of
	 * a detach) undoes it.
	 */
	bool lazy;
	/* the in-process agent (patch.c) */
	struct bp_prog *progs; /* each engine's program here */
	/*
	 * What the agent runs, made of progs: one engine's program as it is,
	 * or several engines' conditions one after the other (a trap when
	 * one holds; each engine then evaluates its own: event.c's
	 * bp_filter). NULL: none, or several with commands (never patched).
	 */
	uint8_t *cond;
	uint32_t cond_len;
	uint32_t cond_ncmds;   /* how many of them, at the end, are commands */
	uint64_t cond_owner;   /* the engines (bits) whose programs make it */
	const char *patch_why; /* why it is not patched, once tried */
	struct bp_patch *patch;
	bool trace_on;		   /* cond is a fast tracepoint's program (engine_bp_trace) */
	struct engine_trace trace; /* ... and what the agent needs of it */
};

struct hwbp {
	struct hwbp *next;
	enum engine_bp_type type;
	uint64_t addr;
	int len;
	int refs;
};

struct engine {
	struct engine *next;
	struct uproc *p;
	int slot; /* bit in the per-thread masks */
	struct engine_client client;
	bool stopped;		   /* the process is stopped for this engine */
	unsigned long resumed_seq; /* p->event_seq when it last resumed */
	bool interrupt_req;	   /* ^C asked, not yet reported */
	bool has_report;	   /* report waits for all threads to stop */
	bool notify;		   /* report ready for on_stop() */
	bool dead;		   /* the process is gone */
	bool attaching;		   /* its attach stop is not reported yet ... */
	long long attach_expires;  /* ... and when to give up (tracer_deadline()) */
	long long attach_started;  /* ... and when it began (engine_attach_partial) */
	struct engine_stop report;
	bool pass[NSIG];
	struct sysset catch_sys; /* syscalls it stops for (gdb's QCatchSyscalls) */
	bool observer;		 /* hears events through on_event, never stops */
	unsigned events;	 /* ENGINE_EVENT_* */
	/* its engines on fork children whose fork it has not taken yet (fork.c) */
	struct engine *children[16];
	unsigned nchildren;
	bool nonstop;		 /* per-thread stops (nonstop.c) */
	struct engine_stop *nsq; /* non-stop reports not yet handed to on_stop() */
	size_t nsq_len, nsq_cap;
	unsigned observe; /* ENGINE_OBSERVE_* */
	/* all-stop: thread exits and no-resumed heard while busy, reported next (thread_events.c)
	 */
	struct engine_stop *later;
	size_t nlater, later_cap;
	struct hwbp *hw; /* this engine's hardware breakpoints/watchpoints */
	/* its fast tracepoints' buffer space (patch.c, engine_trace_budget) */
	int64_t trace_drained; /* bytes of the agent's frames handed to the client */
	int64_t trace_free;    /* what the client's buffer has left */
	uint64_t trace_ctl_at; /* the output region its agent_trace_ctl is set up in (an exec: a new
				  one) */
};

/*
 * The registers a thread had when it died in a stop (a SIGKILL or an
 * exit_group woke it while a client held it): once its whole process is
 * dead and until the clients hear of it, they are read as they were, as
 * gdbserver, which reaps nothing while gdb holds the process, answers
 * them from its register cache.
 */
struct uthread_ghost {
	struct uthread_ghost *next;
	pid_t tid;
	struct arch_regs regs;
};

struct uproc {
	struct uproc *next;
	struct tracer *t;
	pid_t pid;
	const struct arch_desc *arch;
	bool attached; /* attached (true) or launched (false) */
	bool exited;
	bool frozen;	     /* attaching or detaching: sched_update() leaves all stopped */
	long long let_go_by; /* no engine left: let go when all stopped, or by then (leaving.c) */
	bool attaching;	     /* not every thread seized and stopped yet (attach_settle()) */
	bool attach_signals; /* ... and the last round: queued signals taken */
	bool leader_gone;    /* the leader exited alone: a zombie until the others are gone */
	bool group_exiting;  /* a thread ended with the whole process (exit_group, a signal) */
	int memfd;	     /* /proc/PID/mem */
	struct uthread *threads;
	struct uthread_ghost *ghosts; /* registers of threads that died stopped (uproc.c) */
	struct uthread *last_event;   /* thread of the latest event (for ^C reports) */
	unsigned long event_seq;      /* events so far: last_event's is the latest */
	struct engine *engines;
	uint64_t slots; /* engine slots in use */
	struct swbp *bps;
	uint64_t bp_gen; /* breakpoints made: each its own number (swbp.gen) */
	struct arch_dregs dregs;
	bool dregs_used; /* debug registers were ever written */
	bool sys_traced; /* an engine wants syscalls: resume with PTRACE_SYSCALL */
	bool seccomp;	 /* it carries our seccomp filter (seccomp.c) ... */
	struct sysset
		sc_set[2]; /* ... which stops at these (by arch personality: native, compat) */
	bool sys_cont;	   /* ... enough for every engine: PTRACE_CONT outside syscalls */
	uint64_t moribund[MORIBUND_MAX]; /* recently removed breakpoint addresses */
	unsigned moribund_next;
	struct uthread *step_over;  /* thread stepping over a breakpoint */
	uint64_t step_over_addr;    /* ... and the trap it steps over */
	struct xol_page *xol_pages; /* scratch pages for out-of-line steps */
	uint64_t xol_sysinsn;	    /* a syscall instruction to inject through (vDSO) */
	uint64_t xol_unmap;	    /* a page mapped where we did not ask: unmap at the end */
	unsigned xol_map_failures;  /* mmaps that failed: after 3 we stop trying */
	bool xol_off;		    /* out of line given up for this process */
	bool xol_mapping;	    /* a thread is mapping a page (one at a time) */
	bool xol_releasing;	    /* the let-go's munmaps have begun (xol_release) */
	unsigned long xol_inj_seq;  /* syscalls injected so far (fork.c orders forks with them) */
	struct engine_xol_stats xol_stats;
	uint64_t agent_at;    /* the in-process agent's code, written there (patch.c) */
	uint64_t agent_map;   /* ... the region mapped for it, 0: none yet */
	uint64_t agent_out;   /* its output region (agent-style dprintf), 0: none yet */
	void *agent_out_view; /* utraced's own mapping of it (it outlives an exec), or NULL */
	size_t agent_out_len;
	bool patch_pass;	    /* patches to write or undo, every thread stopped */
	uint64_t trace_ctl_used[8]; /* (AGENT_CTL_SLOTS bits) */
	/* ^ agent_trace_ctl slots taken by fast tracepoints (patch.c) */
};

/*
 * A fork child between its parent's fork event and its first stop, and
 * while pages of ours it inherited are unmapped in it (fork.c): nobody
 * waits for it, its statuses come through the loop.
 */
struct fork_child {
	struct fork_child *next;
	pid_t pid;
	struct uproc *parent; /* NULL once the parent is gone */
	pid_t parent_tid;     /* the forking thread, held at its stop while want */
	bool vfork;
	bool shared_vm; /* its memory is its parent's (vfork, clone(CLONE_VM)): not touched */
	uint64_t want, follow; /* the parent's engines that take it, that observe it (bits) */
	unsigned long inj_seq; /* the parent's injected syscalls made before the fork */
	bool stopped;	       /* its first stop seen */
	int sig;	       /* a signal it met meanwhile: given when it goes on */
	struct swbp *traps;    /* traps it keeps for the engines that take it (parent's bits) */
	const struct arch_desc *arch;
	uint64_t sysinsn; /* the syscall instruction to inject through (its parent's vDSO's) */
	struct fork_page {
		uint64_t addr, len;
	} * pages; /* pages of ours it may have, unmapped one by one */
	size_t npages, pages_cap, next_page;
	bool injecting, entered; /* an munmap in flight, its entry stop seen */
	unsigned tries;		 /* munmaps of this page met by a signal first */
	arch_gp_t saved;
};

struct tracer {
	int epfd;  /* what tracer_fd() returns */
	int sigfd; /* SIGCHLD */
	int evfd;  /* wakes the loop for deferred on_stop() calls */
	struct uproc *procs;
	bool notify_pending;
	/* stops of pids not yet known (a fork child that stopped before its parent's event) */
	struct early_status {
		pid_t pid;
		int status;
	} * early;
	size_t nearly, early_cap;
	unsigned long nstops; /* ptrace stops reaped (tracer_stops) */
	bool rusage;	      /* an observer wants system times: wait4 with a rusage */
	/* threads let go before they stopped, detached at their next stop (leaving.c) */
	struct leaving {
		pid_t pid, tid;
		bool dregs; /* its debug registers to clear first */
		/* our traps it may have hit before it stops: a SIGTRAP there is rewound */
		const struct arch_desc *arch;
		unsigned ntraps;
		uint64_t traps[2 * MORIBUND_MAX]; /* inserted, then recently removed */
	} * leaving;
	size_t nleaving, leaving_cap;
	int stop_timeout_ms; /* tracer_set_stop_timeout(); 0: as long as it takes */
	long long drain_at;  /* when the agents' dprintf output is read next (patch_out.c) */
	pid_t inflight_tid;  /* a status reaped and being handled (crash.c) */
	int inflight_status;
	struct fork_child *forks; /* fork children not settled yet (fork.c) */
	bool xol;		  /* step over breakpoints out of line (tracer_set_xol) */
	bool agent;		  /* conditions in the process (tracer_set_agent, patch.c) */
};

/* waitloop.c */
void tracer_wake(struct tracer *t);
/* Block until one status arrives and handle it; -ECHILD when nothing is traced. */
int tracer_wait_one(struct tracer *t);
/* The same, giving up at deadline (tracer_deadline()): -ETIMEDOUT. */
int tracer_wait_until(struct tracer *t, long long deadline);
/* When a wait for stops begun now gives up (CLOCK_MONOTONIC ms; LLONG_MAX: never). */
long long tracer_deadline(struct tracer *t);
long long tracer_now_ms(void); /* CLOCK_MONOTONIC */
/* The same for the stops before a detach: shorter (what does not stop leaves later). */
long long tracer_detach_deadline(struct tracer *t);
struct uthread *tracer_find_thread(struct tracer *t, pid_t tid);
pid_t tracer_tgid_of(pid_t tid); /* from /proc/TID/status; 0 if unknown */
/* A status kept for a task not known yet (early): taken off the list, or -ENOENT. */
int tracer_take_early(struct tracer *t, pid_t pid, int *status);

/* leaving.c */
/* Thread tid of p is let go at its next stop, p's traps (in place or just removed) in mind. */
void leaving_add(struct uproc *p, pid_t tid);
/* The same entry, not kept (no allocation: the crash handler's) ... */
void leaving_init(struct leaving *l, const struct uproc *p, pid_t tid);
/* ... and what is done at its stop: rewound if at a trap of ours, detached with its signal. */
void leaving_let_go(const struct leaving *l, int status);
/* A single-step's trap is queued for stopped tid (an interrupt overtook it). */
bool leaving_trap_queued(pid_t tid, int si_code);
bool leaving_step_trap_queued(pid_t tid);
/* A status of a leaving thread: handled (true), or not one of them. */
bool leaving_status(struct tracer *t, pid_t tid, int status);
/* Some thread of pid is still leaving. */
bool leaving_pid(struct tracer *t, pid_t pid);
void leaving_drain(struct tracer *t); /* at exit: wait (1 s at most) for them to go */
void leaving_free(struct tracer *t);
/* The last engine is gone: let the process go (now, or as its threads stop). */
void uproc_let_go(struct uproc *p);
/* Let-gos whose threads have stopped or whose wait is over: done. Then ms to the next, or -1. */
int leaving_procs_advance(struct tracer *t);
/* ... and one now, waiting for its threads (the daemon's exit). */
void leaving_proc_finish_sync(struct uproc *p);

/* uproc.c */
struct uproc *uproc_new(struct tracer *t, pid_t pid, bool attached);
void uproc_free(struct uproc *p);
void uproc_open_mem(struct uproc *p);
struct uthread *uthread_add(struct uproc *p, pid_t tid);
void uthread_remove(struct uthread *th);
void uthread_ghost_keep(struct uthread *th, bool dead);
struct arch_regs *uproc_ghost_regs(struct uproc *p, pid_t tid);
struct uthread *uproc_thread(struct uproc *p, pid_t tid);
int uproc_seize(struct uproc *p, pid_t tid);
void uproc_detach_all(struct uproc *p);
/* Ask every running thread to stop; true: all are stopped already. */
bool uproc_interrupt_all(struct uproc *p);
/* 0 once every thread is stopped (or the process gone), -ETIMEDOUT at deadline. */
int uproc_stop_all_sync(struct uproc *p, long long deadline);
/* An attach's last round: continue threads with their own signal queued (no wait). */
void uproc_take_queued_signals(struct uproc *p);
void uproc_handle_status(struct uproc *p, struct uthread *th, int status);
void uproc_exited(struct uproc *p, int status);
/* th had an event: the thread a ^C names if it comes before a resume (sched.c). */
void event_seen(struct uthread *th);
/* The signal th's resume or detach gives it: 0 if it had to be queued instead. */
int uproc_resume_signal(struct uthread *th);

/* nonstop.c */
void nonstop_report(struct engine *e, struct uthread *th, const struct engine_stop *st);
void nonstop_stop_requests(struct uproc *p);

/* fork.c */
void fork_event(struct uthread *th, pid_t child, bool vfork);
/* A status of a fork child not settled yet: handled (true), or not one of them. */
bool fork_child_status(struct tracer *t, pid_t pid, int status);
/* Fork children that can go on (their parent's syscalls done): on. */
void fork_children_advance(struct tracer *t);
/* p mapped a page at addr by its injected syscall seq: children forked since may have it. */
void fork_children_page(struct uproc *p, unsigned long seq, uint64_t addr, uint64_t len);
void fork_children_engine_gone(struct engine *e);
void fork_children_parent_gone(struct uproc *p);
void fork_children_free(struct tracer *t); /* at exit */
/* fork.c <-> fork_child.c: a new one, on its way; a page it may have; its end. */
void fork_child_start(struct tracer *t, struct fork_child *fc);
void fork_child_page(struct fork_child *fc, uint64_t addr, uint64_t len);
void fork_child_settle(struct tracer *t, struct fork_child *fc, bool alive);
void fork_traps_free(struct swbp *bps);
/* Is the task a clone made a thread of p (or a process of its own)? */
bool fork_is_thread(struct uproc *p, pid_t tid);

/* thread_events.c */
struct uthread *thread_born(struct uproc *p, pid_t tid);
void thread_exited(struct uthread *th, int status);
void thread_exit_stop(struct uthread *th);
/* A stop of one thread, not to be reported once that thread is dying. */
bool stop_dies_with_thread(enum engine_stop_kind kind);
void thread_reports_next(struct uproc *p);

/* sched.c */
void sched_update(struct uproc *p);
void sched_step_over_done(struct uproc *p);
bool sched_all_stopped(struct uproc *p);

/* event.c */
void event_classify(struct uthread *th, int sig);
void event_dispatch(struct uthread *th);
uint64_t event_wanted_by(struct uthread *th, const struct uevent *ev);

/* syscall.c */
void sys_handle_stop(struct uthread *th);
uint64_t sys_wanted_by(struct uproc *p, const struct uevent *ev);
void observe_signal(struct uthread *th, int sig);
void observe_exit(struct uproc *p, pid_t tid, int status);
void observe_thread_new(struct uproc *p, pid_t tid);
void observe_group_stop(struct uthread *th, int sig);
void observe_exiting(struct uthread *th);
void observe_tid_changed(struct uthread *th, pid_t old_tid);
void thread_stop_seen(struct uthread *th, int status);
void sys_update(struct uproc *p);
bool sys_step_needs_stops(struct uthread *th);
/* PTRACE_SYSCALL or PTRACE_CONT, for a thread that is not stepped */
int sys_resume_request(const struct uthread *th);

/* seccomp.c */
struct sock_filter;
void seccomp_sets(struct sysset sets[2], const struct engine_seccomp *sc);
/* The filter for sets into out (at most max instructions): its length, or -E2BIG. */
int seccomp_build(const struct sysset sets[2], struct sock_filter *out, size_t max);
/* In the launched child: no new privileges, then the filter. 0 or -errno. */
int seccomp_install(const struct sock_filter *f, size_t n);

/* xol.c */
enum xol_result {
	XOL_NO,	     /* step it over in place */
	XOL_GO,	     /* its pc is in its slot: resume it */
	XOL_MAPPING, /* it maps a page, or waits for one: back at its breakpoint after */
};
enum xol_result xol_start(struct uthread *th, uint64_t addr);
/* The same for an engine's single-step of th (XOL_GO: resume it stepping). */
enum xol_result xol_start_step(struct uthread *th, uint64_t addr);
/*
 * th stopped (status: its wait status; 0 unknown): one that stopped
 * inside its slot is put where the program would be. True if the stop
 * was taken (a step through the slot went on: th runs).
 */
bool xol_stopped(struct uthread *th, int status);
/* A stop of a thread lent to a syscall: true if that was all (see xol.c). */
bool xol_inject_stop(struct uthread *th, int status);
void xol_thread_gone(struct uthread *th);
void xol_exec(struct uproc *p);
/* Is a syscall injected in p, as seq or before it, still in flight? */
bool xol_injecting_upto(const struct uproc *p, unsigned long seq);
/* The last engine left: pages out (sync: waited for); true: an munmap on its way, call again. */
bool xol_release(struct uproc *p, bool sync);
void xol_free(struct uproc *p);
/* Is tid's shadow stack on? A call copied out of line would then break it. */
bool xol_shadow_stack(struct uproc *p, pid_t tid);
/* n free slots in a row in a page within reach of addr (any page: 0); 0 if none. */
uint64_t xol_take(struct uproc *p, uint64_t addr, unsigned n);
void xol_give_back(struct uproc *p, uint64_t addr, unsigned n);
/* No room in reach of addr: th maps a page (XOL_MAPPING) or waits for one; XOL_NO: cannot. */
enum xol_result xol_need_page(struct uthread *th, uint64_t addr);
/*
 * The same for a region of len bytes anywhere, executable (the agent's
 * code) or writable (its output): *where is its address once mapped.
 */
/*
 * A region of the process's own: its code (exec), or, with name (the
 * address of a string in the process), a memfd's shared memory which
 * utraced maps too (agent_out_view: drained from there at an exec).
 */
enum xol_result xol_need_region(struct uthread *th, uint64_t len, bool exec, uint64_t name,
				uint64_t *where);

/* patch.c */
/* The bytes of ours in memory at bp (an int3, or a patch's jmp), and how many. */
const uint8_t *patch_bytes(const struct uproc *p, const struct swbp *bp, size_t *len);
/* Should bp become a patch: conditions the agent can run, one owner, room? */
bool patch_wanted(struct uproc *p, const struct swbp *bp);
/* Trampoline, program and agent written for bp, through th's stop; the jmp at the next pass. */
enum xol_result patch_prepare(struct uthread *th, struct swbp *bp);
/* th at a patched bp, reported there: on from the relocated instruction. */
enum xol_result patch_go_on(struct uthread *th, struct swbp *bp);
/* Breakpoints owed (under a jmp when asked for): in now, every thread stopped. */
void bp_insert_owed(struct uproc *p);
/* The agent's dprintf records of p, to their engines (patch_out.c). */
void patch_drain(struct uproc *p);
/* At an exec event: the rings as the old image left them (utraced's own view of them). */
void patch_drain_exec(struct uproc *p);
/* utraced's own mapping of the output region (memfd fd, len bytes), or none any more. */
void patch_out_view(struct uproc *p, int fd, size_t len);
void patch_out_view_drop(struct uproc *p);
/* Is one of engines' clients behind with the agent's output (out_busy)? */
bool patch_out_busy(struct uproc *p, uint64_t engines);
/* Every process's, when their time has come: ms to the next time, -1: none wanted. */
int patch_out_tick(struct tracer *t);
/* Every thread stopped: write the jmps prepared, undo the patches unwanted. */
void patch_pass(struct uproc *p);
/* The same at a resume: only_steps keeps lazily removed breakpoints' jmps (bp->lazy). */
void patch_pass_resume(struct uproc *p, bool only_steps);
/* th stopped: one in a trampoline or the agent is put back at its breakpoint. */
void patch_stopped(struct uthread *th);
/* Its stop was a hit of a patched breakpoint (its trap, or a condition's fault): parked. */
bool patch_classify(struct uthread *th, int sig);
/* bp loses its last owner: undone now if every thread is stopped; true if bp may go. */
bool patch_remove(struct uproc *p, struct swbp *bp);
/* Every thread stopped: the patch whose jmp covers addr (not at its start) undone; false: none. */
bool patch_undo_under(struct uproc *p, uint64_t addr);
/*
 * The crash handler's (async-signal-safe): tid of p, stopped, put back at
 * its breakpoint if in a trampoline (1) or in the agent (2); 0: neither.
 */
int patch_rollback_tid(struct uproc *p, pid_t tid);
/* patch_site.c */
/* May ap's jmp go at addr (nothing else reaches the bytes it covers)? NULL, or why not. */
const char *patch_site_check(struct uproc *p, uint64_t addr, const struct arch_patch *ap);
/* Is addr under the jmp of an applied patch (past its first byte)? */
bool patch_under_jmp(struct uproc *p, uint64_t addr);
/* The applied patch whose replaced bytes hold pc (its address included); NULL: none. */
struct swbp *patch_covering(struct uproc *p, uint64_t pc);
/* th about to run: if its pc is between a patch's replaced instructions, their copy instead. */
void patch_resume(struct uthread *th);
/* bp's patch dropped (its bytes are not ours any more), or all of it with bp. */
void patch_forget(struct uproc *p, struct swbp *bp);
void patch_bp_free(struct uproc *p, struct swbp *bp);
/* e's program at bp goes (its last removal; a lazy breakpoint another engine takes). */
void patch_prog_drop(struct uproc *p, struct swbp *bp, uint64_t owner);

/* bp.c */
struct swbp *bp_find(struct uproc *p, uint64_t addr);
int bp_sw_insert(struct engine *e, uint64_t addr);
int bp_sw_remove(struct engine *e, uint64_t addr);
/* The same for a client's remove (z0): a patched breakpoint may keep its jmp (bp->lazy). */
int bp_sw_remove_lazy(struct engine *e, uint64_t addr);
int bp_hw_insert(struct engine *e, enum engine_bp_type type, uint64_t addr, int len);
int bp_hw_remove(struct engine *e, enum engine_bp_type type, uint64_t addr, int len);
void bp_engine_drop(struct engine *e);
int bp_write_insn(struct uproc *p, struct swbp *bp, bool trap);
bool bp_is_moribund(struct uproc *p, uint64_t addr);
bool bp_trap_present(struct uproc *p, struct swbp *bp);
void bp_dregs_apply(struct uthread *th);
void bp_dregs_clear(pid_t tid);

/* mem.c */
ssize_t mem_read_raw(struct uproc *p, uint64_t addr, void *buf, size_t len);
ssize_t mem_write_raw(struct uproc *p, uint64_t addr, const void *buf, size_t len);
ssize_t mem_read_orig(struct uproc *p, uint64_t addr, void *buf, size_t len);
int regs_fetch(struct uthread *th, bool ext);
/* A thread's general registers, raw, without the cache (injected syscalls, fork children). */
int regs_gp_get(const struct arch_desc *d, pid_t tid, arch_gp_t *gp);
int regs_gp_set(const struct arch_desc *d, pid_t tid, const arch_gp_t *gp);
int regs_store(struct uthread *th, unsigned which);
/*
 * Store the cached general registers if they were changed without a
 * store (regs_dirty: the pc rewound onto a hit trap, event.c, which the
 * out-of-line step's own store makes unneeded). Before anything that
 * resumes the thread or reads its registers from the kernel.
 */
void regs_sync(struct uthread *th);
void regs_invalidate(struct uthread *th);

/* engine_attach.c */
struct engine *engine_new(struct uproc *p, const struct engine_client *c);
void detect_arch(struct uproc *p, pid_t tid);
/* An attach's threads not seized yet (made meanwhile): seized now; how many. */
int attach_seize_new(struct uproc *p);
/* A stop of a process being attached: true once it is all ours and stopped. */
bool attach_settle(struct uproc *p);

/* report.c: reports kept or queued on their engine, handed to on_stop() from the loop */
void engine_report(struct engine *e, const struct engine_stop *st);
/* (engine_report's queue of a non-stop engine's reports) */
void nonstop_queue(struct engine *e, const struct engine_stop *st);
void report_notify_all(struct tracer *t);

#define for_each_thread(p, th) for (struct uthread *th = (p)->threads; th; th = th->next)
#define for_each_engine(p, e)  for (struct engine *e = (p)->engines; e; e = e->next)
#define ENGINE_BIT(e)	       (1ULL << (e)->slot)

#endif
