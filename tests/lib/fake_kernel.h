/*
 * fake_kernel.h: a fake kernel and a small world for the engine unit tests
 * (tests/unit/engine_*_test.c), which check the arbitration rules of
 * docs/engines.md without real processes.
 *
 * fake_kernel.c defines ptrace(), waitpid(), poll() and process_vm_readv(),
 * which the engine objects linked from libutraced.a then call instead of
 * libc's. The fake keeps per-thread registers, siginfo and debug registers,
 * logs every resume request, and checks that nothing is asked of a thread
 * that is not in a ptrace-stop. The tracee's memory is a sparse memfd
 * standing in for /proc/PID/mem. Kernel events (k_*()) are fed to
 * uproc_handle_status() as wait statuses; reports reach each engine's
 * on_stop() through tracer_poll(), as in the daemon.
 *
 * Resume traffic is checked as a compact trace: "c2" is PTRACE_CONT of
 * thread 2, "c3:10" the same with signal 10, "s" single-step, "i"
 * PTRACE_INTERRUPT, "d" PTRACE_DETACH. Thread 1 is the leader.
 */
#ifndef UTRACED_FAKE_KERNEL_H
#define UTRACED_FAKE_KERNEL_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "engine/engine_int.h"

/* Above PID_MAX_LIMIT: uproc_new() can never open a real /proc/PID/mem. */
#define PID	   5000000
#define NTHREADS   3
#define TID(i)	   (PID + (i)-1)
#define TEXT	   0x401000ull
#define TEXT_LEN   256
#define BP_X	   (TEXT + 0x10)
#define BP_Y	   (TEXT + 0x20)
#define NOT_A_BP   (TEXT + 0x30)
#define START_PC   (TEXT + 0x80)
#define DATA	   0x601000ull
#define DR6_BS	   0x4000ul
#define EVENT_STOP (W_STOPCODE(SIGTRAP) | (PTRACE_EVENT_STOP << 16))
/* The vector regset's size: x86's XSAVE with AVX, arm64's FPSIMD (all of it). */
#define EXT_SIZE (ARCH_EXT_MAX < 1088 ? ARCH_EXT_MAX : 1088)

/* ---- the fake kernel ---- */

struct fthread {
	bool alive;
	bool running;
	bool intr;	     /* PTRACE_INTERRUPT pending */
	bool trap_pending;   /* an int3's SIGTRAP not yet delivered (PTRACE_PEEKSIGINFO) */
	int queued;	     /* a signal on the thread's own queue (PTRACE_PEEKSIGINFO) ... */
	uint64_t blocked;    /* ... and its blocked mask (PTRACE_GETSIGMASK) */
	bool in_syscall;     /* its last syscall-stop was an entry (PTRACE_GET_SYSCALL_INFO) */
	arch_gp_t regs;	     /* k_pc(), k_set_pc(), k_reg() read and write it */
	unsigned long dr[8]; /* x86: DR0-DR7 (PTRACE_POKEUSER) */
	uint64_t hwa[8];     /* arm64: NT_ARM_HW_BREAK slots 0-3, NT_ARM_HW_WATCH 4-7 */
	uint32_t hwc[8];     /* ... their control words */
	siginfo_t si;
};

struct rec {
	int n;
	struct engine_stop st[16];
};

extern struct fthread kt[NTHREADS + 1]; /* kt[1] is the leader */
extern int memfd;			/* the tracee's memory */
/* No diagnostics for requests the fake refuses (fuzz/: a client asks anything). */
extern bool fake_kernel_quiet;

/* The resume traffic since the last call, and forget it. */
const char *trace(void);
/* No request for a running thread, no test error since the last call. */
bool fake_kernel_clean(void);

/* ---- the world: one process, three threads, engines A and B ---- */

extern struct tracer *tracer;
extern struct uproc *p;
extern struct engine *A, *B;
extern struct rec ra, rb; /* what A and B were told */
extern const struct engine_resume all_run;

/* Before the first test and after the last. */
bool world_init(void);
void world_exit(void);
/* Two engines, three threads, all running, nothing held; the trace. */
const char *setup(void);
/* Every engine leaves; true when the process was released cleanly. */
bool world_release(void);
/* What engine_new() (static in engine_attach.c) does. */
struct engine *engine_make(struct rec *r, const char *name);
struct uthread *th(int i);
/* The byte the text holds at addr, breakpoints aside. */
uint8_t text_byte(uint64_t addr);
/* The byte in the tracee's memory, and as engine e sees it. */
int raw_byte(uint64_t addr);
/* Does the tracee's memory hold the CPU's breakpoint instruction at addr? */
bool raw_trap(uint64_t addr);
/* Has the CPU debug registers the engine can use (arm64: not yet)? */
bool have_debug_regs(void);
/* Thread i's pc, set; its register regno (gdb's number; up to 8 bytes). */
uint64_t k_pc(int i);
void k_set_pc(int i, uint64_t pc);
/* The syscall thread i is in (its syscall-stops: PTRACE_GET_SYSCALL_INFO). */
void k_set_syscall_nr(int i, long nr);
uint64_t k_reg(int i, int regno);
int view_byte(struct engine *e, uint64_t addr);
/* Hand ready reports to the engines, as the daemon's event loop does. */
void poll_reports(void);
const struct engine_stop *last(const struct rec *r);
void set_pass(struct engine *e, int sig, bool pass);
/* The last of r's n reports is this one (else says what came). */
bool is_stop(const struct rec *r, int n, enum engine_stop_kind kind, int i, int sig);

/* ---- kernel events ---- */

void k_status(int i, int status);
void set_si(int i, int sig, int code);
/* Thread i executes the breakpoint instruction at addr (x86: int3, the pc past it). */
void k_int3(int i, uint64_t addr);
/* Thread i finishes a single-step over an instruction as long as a breakpoint. */
void k_step(int i);
/* Signal-delivery-stop of thread i for sig, sent by kill(). */
void k_signal(int i, int sig);
/* Thread i stops for our PTRACE_INTERRUPT; k_intr_all(): every one. */
void k_intr(int i);
void k_intr_all(void);
/* Debug-register trap of thread i: dr6 bits B0..B3 (arm64: that watchpoint slot's address). */
void k_watch(int i, unsigned long dr6);
/* Does thread i watch addr in watchpoint slot slot; no slot at all; its status clear (x86 DR6)? */
bool k_dr_watching(int i, int slot, uint64_t addr);
bool k_dr_clear(int i);
bool k_dr_status_clear(int i);
/* Thread i is gone with this wait status (W_EXITCODE, or a signal number). */
void k_die(int i, int status);

#endif
