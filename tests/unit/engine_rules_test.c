/*
 * The engine arbitration rules (docs/engines.md) on a fake kernel
 * (tests/lib/fake_kernel.h): who runs, who hears which event, signal
 * delivery and suppression, breakpoint ownership, single-step owners,
 * ^C, and events for a busy engine. engine_steps_test.c has the rest.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fake_kernel.h"
#include "tap.h"

static void teardown(void)
{
	ok(world_release(),
	   "  (process released; the fake kernel saw no request for a running thread)");
}

static void test_who_runs(void)
{
	static const struct engine_resume a_acts[] = {
		{.tid = TID(2), .action = ENGINE_RUN},
		{.tid = TID(3), .action = ENGINE_STEP},
	};
	static const struct engine_resume mixed[] = {
		{.tid = TID(1), .action = ENGINE_HOLD},
		{.tid = TID(2), .action = ENGINE_STEP},
		{.tid = -1, .action = ENGINE_RUN},
	};

	diag("who runs; ^C");
	is_str(setup(), "c1 c2 c3", "nobody stopped, nothing held: every thread is continued");

	is_int(engine_interrupt(A), 0, "^C from A");
	is_str(trace(), "i1 i2 i3", "  interrupts every running thread");
	k_intr(1);
	k_intr(2);
	poll_reports();
	ok(!engine_stopped(A) && ra.n == 0, "  no report while a thread still runs");
	k_intr(3);
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_INTERRUPT, 1, SIGINT),
	   "  all stopped: A gets INTERRUPT (SIGINT)");
	is_int(rb.n, 0, "  B hears nothing of A's ^C");
	ok(engine_stopped(A) && !engine_stopped(B), "  the process is stopped for A only");

	is_int(engine_interrupt(B), 0, "^C from B while everything is stopped for A");
	poll_reports();
	ok(is_stop(&rb, 1, ENGINE_STOP_INTERRUPT, 1, SIGINT), "  B gets INTERRUPT at once");
	is_str(trace(), "", "  without any ptrace request");

	is_int(engine_resume(A, a_acts, 2), 0, "A: vCont;c:2;s:3 (T1 left out)");
	is_str(trace(), "", "  B is still stopped: nothing runs");
	is_int(th(1)->hold_mask, ENGINE_BIT(A), "  A holds T1");
	is_int(th(3)->step_mask, ENGINE_BIT(A), "  A wants T3 stepped");
	is_int(engine_resume(A, &all_run, 1), -EBUSY,
	       "  A cannot resume again before its next stop");

	is_int(engine_resume(B, &all_run, 1), 0, "B: vCont;c");
	is_str(trace(), "c2 s3",
	       "  T1 stays (A holds it), T3 is stepped (step beats run), T2 runs");

	k_step(3);
	is_str(trace(), "i2", "T3's step is done: the running T2 is interrupted for the report");
	k_intr(2);
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_STEP, 3, SIGTRAP), "  A, which asked for the step, gets it");
	is_int(rb.n, 1, "  B, which let T3 run, hears nothing");
	is_int(th(1)->hold_mask | th(3)->step_mask, 0, "  A's per-thread wishes are reset");

	is_int(engine_resume(A, mixed, 3), 0, "A: vCont;t:1;s:2;c");
	is_str(trace(), "s2 c3", "  T1 held, T2 stepped, T3 continued");
	k_step(2);
	is_str(trace(), "i3", "T2's step is done: T3 is interrupted");
	k_intr(3);
	poll_reports();
	ok(is_stop(&ra, 3, ENGINE_STOP_STEP, 2, SIGTRAP), "  A gets the step of T2");
	is_int(rb.n, 1, "  B nothing");
	teardown();
}

/* gdb sends ^C between a stop and its next vCont too: gdbserver's SIGINT ends that resume. */
static void test_interrupt_queued(void)
{
	diag("^C while stopped: the next resume stops at once");
	setup();
	engine_interrupt(A);
	trace();
	k_intr(1);
	k_intr(2);
	k_intr(3);
	poll_reports();
	is_int(engine_interrupt(A), 0, "^C from A while stopped");
	poll_reports();
	is_int(ra.n, 1, "  no report now");
	is_int(engine_resume(A, &all_run, 1), 0, "A: vCont;c");
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_INTERRUPT, 1, SIGINT), "  A is stopped again: INTERRUPT");
	is_str(trace(), "", "  and nothing ran");
	is_int(rb.n, 0, "  B hears nothing");
	teardown();
}

static void test_breakpoint_owners(void)
{
	diag("breakpoints: who hears an int3");
	setup();
	is_int(engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1), 0, "A inserts a breakpoint at X");
	ok(raw_trap(BP_X), "  int3 in memory");
	is_int(view_byte(B, BP_X), text_byte(BP_X), "  B reads the original byte there");
	is_int(view_byte(A, BP_X), text_byte(BP_X), "  so does A");

	k_int3(2, BP_X);
	is_int(k_pc(2), BP_X, "T2 hits X: its pc is rewound onto the breakpoint");
	is_str(trace(), "i1 i3", "  the other threads are stopped for the report");
	poll_reports();
	is_int(ra.n, 0, "  no report before they are");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SWBREAK, 2, SIGTRAP) && last(&ra)->addr == BP_X,
	   "  A, the owner, gets SWBREAK at X");
	is_int(rb.n, 0, "  B, which has no breakpoint there, gets nothing");
	ok(engine_stopped(A) && !engine_stopped(B), "  stopped for A only");
	teardown();
	is_int(raw_byte(BP_X), text_byte(BP_X), "the owner's detach removed the trap");

	setup();
	is_int(engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1), 0, "A and B both insert X");
	is_int(engine_bp_insert(B, ENGINE_BP_SW, BP_X, 1), 0, "  (B)");
	ok(raw_trap(BP_X), "  one trap in memory");
	is_int(view_byte(B, BP_X), text_byte(BP_X), "  reads show the original byte");
	k_int3(3, BP_X);
	is_str(trace(), "i1 i2", "T3 hits X: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SWBREAK, 3, SIGTRAP), "  A gets SWBREAK");
	ok(is_stop(&rb, 1, ENGINE_STOP_SWBREAK, 3, SIGTRAP), "  B gets SWBREAK too");
	ok(engine_stopped(A) && engine_stopped(B), "  stopped for both");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "", "A resumes: B still holds everything");
	engine_resume(B, &all_run, 1);
	is_str(trace(), "s3", "B resumes: T3 steps over X alone");
	is_int(raw_byte(BP_X), text_byte(BP_X), "  the original byte is in memory meanwhile");
	k_step(3);
	is_str(trace(), "c1 c2 c3", "  step done: everyone runs");
	ok(raw_trap(BP_X), "  and the trap is back");
	poll_reports();
	ok(ra.n == 1 && rb.n == 1, "  the step over is reported to nobody");
	is_int(engine_bp_remove(A, ENGINE_BP_SW, BP_X, 1), 0, "A removes X");
	ok(raw_trap(BP_X), "  B still owns it: the trap stays");
	is_int(engine_bp_remove(B, ENGINE_BP_SW, BP_X, 1), 0, "B removes X");
	is_int(raw_byte(BP_X), text_byte(BP_X), "  last owner gone: original byte back");
	is_int(engine_bp_remove(B, ENGINE_BP_SW, BP_X, 1), 0, "  removing it twice is fine");

	k_int3(2, BP_X);
	is_int(k_pc(2), BP_X, "T2 hits X just after its removal: pc rewound");
	is_str(trace(), "c2", "  the hit is swallowed: T2 continues, nobody is stopped");
	poll_reports();
	ok(ra.n == 1 && rb.n == 1, "  no report");

	k_int3(2, NOT_A_BP);
	is_int(k_pc(2), NOT_A_BP + ARCH_TRAP_PC_ADV,
	       "an int3 that is nobody's breakpoint: pc left after it");
	is_str(trace(), "i1 i3", "  it is a SIGTRAP: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_SIGNAL, 2, SIGTRAP), "  A gets the SIGTRAP");
	ok(is_stop(&rb, 2, ENGINE_STOP_SIGNAL, 2, SIGTRAP), "  B gets the SIGTRAP");
	teardown();
}

/*
 * A PTRACE_INTERRUPT that lands between an int3 and its SIGTRAP: pc is
 * already past the trap. The engine lets the signal come first instead of
 * taking the interrupt stop as the thread's stop.
 */
static void test_interrupt_after_int3(void)
{
	diag("an interrupt between an int3 and its SIGTRAP");
	setup();
	is_int(engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1), 0, "A inserts a breakpoint at X");
	k_int3(2, BP_X);
	is_str(trace(), "i1 i3", "T2 hits X: the others are interrupted");
	k_set_pc(3, BP_X + ARCH_TRAP_PC_ADV); /* T3 hit it too, its SIGTRAP still pending */
	kt[3].trap_pending = true;
	k_intr(3);
	is_str(trace(), "c3", "  T3's interrupt stop with a trap pending: continued at once");
	k_intr(1);
	poll_reports();
	is_int(ra.n, 0, "  no report while T3's trap is on its way");
	kt[3].trap_pending = false;
	k_int3(3, BP_X);
	is_int(k_pc(3), BP_X, "  its SIGTRAP comes: pc rewound onto X");
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SWBREAK, 2, SIGTRAP), "  then the report (T2's hit)");
	teardown();
}

/*
 * Attach: every thread stopped by our interrupt. A signal waiting on a
 * thread's own queue, unblocked, would have come before a PTRACE_ATTACH's
 * SIGSTOP: that thread is continued so that the signal is its stop. Not
 * a blocked one, not a stop signal.
 */
static void test_attach_queued_signal(void)
{
	diag("attach: a signal already queued on a thread comes first");
	memset(kt, 0, sizeof(kt));
	trace();
	p = uproc_new(tracer, PID, true);
	p->frozen = true;
	for (int i = 1; i <= NTHREADS; i++) {
		struct uthread *t = uthread_add(p, TID(i));

		kt[i].alive = true;
		k_set_pc(i, START_PC);
		t->stopped = true;
		t->attach_stop = true;
	}
	kt[1].queued = SIGTSTP;
	kt[2].queued = SIGUSR1;
	kt[3].queued = SIGUSR2;
	kt[3].blocked = 1ull << (SIGUSR2 - 1);
	uproc_take_queued_signals(p);
	uproc_stop_all_sync(p,
			    tracer_deadline(tracer)); /* as attach_settle() waits, stop by stop */
	is_str(trace(), "c2", "only T2 (SIGUSR1, unblocked) is continued");
	ok(th(2)->stopped && th(2)->has_pending && th(2)->pending.kind == UEV_SIGNAL &&
		   th(2)->pending.sig == SIGUSR1,
	   "  it stops for SIGUSR1 before running: a signal report waits on it");
	ok(!th(1)->has_pending && !th(3)->has_pending,
	   "  T1 (SIGTSTP, a stop signal) and T3 (SIGUSR2 blocked) keep the interrupt stop");
	ok(!th(1)->attach_stop && !th(2)->attach_stop && !th(3)->attach_stop,
	   "  looked at once: later stops are not attach stops");
	uproc_detach_all(p);
	uproc_free(p);
	p = NULL;
	is_str(trace(), "d1 d2:10 d3", "detached: T2 gets its SIGUSR1 back");
	ok(fake_kernel_clean(), "  (the fake kernel saw no request for a running thread)");
}

static void test_step_owner(void)
{
	static const struct engine_resume step2[] = {
		{.tid = TID(2), .action = ENGINE_STEP},
		{.tid = -1, .action = ENGINE_RUN},
	};

	diag("single-step: reported to who asked");
	setup();
	engine_interrupt(B);
	k_intr_all();
	poll_reports();
	trace();
	is_int(engine_resume(B, step2, 2), 0, "B: vCont;s:2;c");
	is_str(trace(), "c1 s2 c3", "  T2 stepped, the others continued");
	k_step(2);
	is_str(trace(), "i1 i3", "T2's step is done: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&rb, 2, ENGINE_STOP_STEP, 2, SIGTRAP), "  B gets its step");
	is_int(ra.n, 0, "  A, which did not ask, hears nothing");
	ok(!engine_stopped(A), "  and is not stopped");

	engine_resume(B, step2, 2);
	is_str(trace(), "c1 s2 c3", "B steps T2 again");
	k_signal(2, SIGTRAP);
	is_str(trace(), "i1 i3", "a SIGTRAP sent with kill() during the step: others stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&rb, 3, ENGINE_STOP_SIGNAL, 2, SIGTRAP), "  B gets a signal, not its step");
	ok(is_stop(&ra, 1, ENGINE_STOP_SIGNAL, 2, SIGTRAP), "  A gets the signal too");
	teardown();
}

static void test_signals(void)
{
	static const struct engine_resume pass3[] = {
		{.tid = TID(3), .action = ENGINE_RUN, .sig = SIGUSR1},
		{.tid = -1, .action = ENGINE_RUN},
	};
	static const struct engine_resume replace3[] = {
		{.tid = TID(3), .action = ENGINE_RUN, .sig = SIGUSR2},
		{.tid = -1, .action = ENGINE_RUN},
	};

	diag("signals: who stops, what is delivered");
	setup();
	k_signal(3, SIGUSR1);
	is_str(trace(), "i1 i2", "SIGUSR1 for T3, passed by nobody: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SIGNAL, 3, SIGUSR1), "  A gets it");
	ok(is_stop(&rb, 1, ENGINE_STOP_SIGNAL, 3, SIGUSR1), "  B gets it");
	engine_resume(B, pass3, 2);
	is_str(trace(), "", "B passes it on (C SIGUSR1): A still stopped, nothing runs");
	engine_resume(A, replace3, 2);
	is_str(trace(), "c1 c2 c3:12", "A replaces it (C SIGUSR2): T3 gets SIGUSR2");

	set_pass(B, SIGUSR1, true);
	k_signal(2, SIGUSR1);
	is_str(trace(), "i1 i3", "B passes SIGUSR1, A does not: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_SIGNAL, 2, SIGUSR1), "  A gets it");
	is_int(rb.n, 1, "  B does not");
	ok(!engine_stopped(B), "  and is not stopped");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "c1 c2 c3", "A resumes with c: the signal is suppressed");

	set_pass(A, SIGUSR1, true);
	k_signal(2, SIGUSR1);
	is_str(trace(), "c2:10", "passed by every engine: delivered at once, nobody stopped");
	poll_reports();
	ok(ra.n == 2 && rb.n == 1, "  no report");

	engine_interrupt(A);
	is_str(trace(), "i1 i2 i3", "^C from A");
	k_signal(3, SIGUSR1);
	k_intr(1);
	k_intr(2);
	poll_reports();
	ok(is_stop(&ra, 3, ENGINE_STOP_INTERRUPT, 3, SIGINT),
	   "  T3 stopped with a passed SIGUSR1 instead: A gets its ^C (at T3, the last event)");
	is_int(th(3)->deliver_sig, SIGUSR1, "  the signal waits on T3");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "c1 c2 c3:10", "  A's c does not suppress a signal it did not see");
	teardown();

	setup();
	k_signal(3, SIGUSR1);
	k_intr_all();
	poll_reports();
	engine_resume(B, pass3, 2);
	engine_resume(A, &all_run, 1);
	is_str(trace(), "i1 i2 c1 c2 c3",
	       "both stop for SIGUSR1; B passes it, then A suppresses it");

	k_signal(3, SIGUSR1);
	k_intr_all();
	poll_reports();
	ok(ra.n == 2 && rb.n == 2, "both stop for SIGUSR1 again");
	trace();
	engine_resume(A, &all_run, 1);
	engine_resume(B, pass3, 2);
	is_str(trace(), "c1 c2 c3", "  A suppresses it, then B passes it: still suppressed");

	k_signal(3, SIGUSR1);
	k_intr_all();
	poll_reports();
	ok(ra.n == 3 && rb.n == 3, "both stop for SIGUSR1 again");
	trace();
	engine_resume(A, replace3, 2);
	engine_resume(B, pass3, 2);
	is_str(trace(), "c1 c2 c3:12",
	       "  A replaces it by SIGUSR2, then B passes SIGUSR1: still SIGUSR2");
	teardown();

	setup();
	set_pass(B, SIGUSR1, true);
	k_signal(3, SIGUSR1);
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SIGNAL, 3, SIGUSR1) && rb.n == 0,
	   "SIGUSR1 passed by B: A alone stops for it");
	engine_interrupt(B);
	poll_reports();
	ok(is_stop(&rb, 1, ENGINE_STOP_INTERRUPT, 3, SIGINT), "  ^C from B: B stops too");
	trace();
	engine_resume(B, replace3, 2);
	engine_resume(A, pass3, 2);
	is_str(trace(), "c1 c2 c3:10", "  B, which did not see SIGUSR1, cannot replace it");
	teardown();
}

static void test_busy(void)
{
	static const struct engine_resume step2[] = {
		{.tid = TID(2), .action = ENGINE_STEP},
		{.tid = -1, .action = ENGINE_RUN},
	};
	static const struct engine_resume pass3[] = {
		{.tid = TID(3), .action = ENGINE_RUN, .sig = SIGUSR1},
		{.tid = -1, .action = ENGINE_RUN},
	};

	diag("events for a busy engine: parked or dropped");
	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	k_int3(1, BP_X);
	is_str(trace(), "i2 i3", "T1 hits A's X: the others are being stopped");
	k_signal(3, SIGUSR1);
	ok(th(3)->has_pending, "T3 stops with SIGUSR1 meanwhile: parked, A is busy");
	ok(!B->has_report, "  B, which wants it too, does not get it ahead of A");
	k_intr(2);
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SWBREAK, 1, SIGTRAP), "  A gets its breakpoint");
	is_int(rb.n, 0, "  B nothing yet");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "", "A resumes: the parked signal is handed out first, nothing runs");
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_SIGNAL, 3, SIGUSR1), "  A gets the parked signal");
	ok(is_stop(&rb, 1, ENGINE_STOP_SIGNAL, 3, SIGUSR1), "  B gets it at the same time");
	engine_resume(A, pass3, 2);
	engine_resume(B, pass3, 2);
	is_str(trace(), "s1", "both pass it on: T1 first steps over X alone");
	k_step(1);
	is_str(trace(), "c1 c2 c3:10", "  then everyone runs, T3 with its signal");

	k_int3(1, BP_X);
	is_str(trace(), "i2 i3", "T1 hits X again: the others are being stopped");
	k_int3(3, BP_X);
	is_int(k_pc(3), BP_X, "T3 hits X too, A is busy: T3's pc is rewound");
	ok(!th(3)->has_pending, "  and the hit dropped");
	k_intr(2);
	poll_reports();
	ok(is_stop(&ra, 3, ENGINE_STOP_SWBREAK, 1, SIGTRAP), "  A hears of T1's hit only");
	is_int(rb.n, 1, "  B nothing");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s1", "A resumes: T1 steps over X");
	k_step(1);
	is_str(trace(), "c1 c2 c3", "  T3 is continued onto the trap, not stepped over it");
	k_int3(3, BP_X);
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 4, ENGINE_STOP_SWBREAK, 3, SIGTRAP), "  T3 hits X again: now reported");
	teardown();

	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	engine_interrupt(A);
	k_intr_all();
	poll_reports();
	trace();
	engine_resume(A, step2, 2);
	is_str(trace(), "c1 s2 c3", "A: vCont;s:2;c");
	k_int3(1, BP_X);
	is_str(trace(), "i2 i3", "T1 hits X: the others are being stopped");
	k_step(2);
	ok(th(2)->has_pending && th(2)->pending.kind == UEV_STEP,
	   "  T2's step ends meanwhile: parked, A is busy");
	k_intr(3);
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_SWBREAK, 1, SIGTRAP), "  A hears of T1's hit");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s1", "A continues: the stale step is dropped, T1 steps over X");
	k_step(1);
	is_str(trace(), "c1 c2 c3", "  then everyone runs");
	poll_reports();
	is_int(ra.n, 2, "  no STEP report: A no longer asks for one");

	k_int3(1, BP_X);
	k_intr_all();
	poll_reports();
	engine_resume(A, step2, 2);
	k_step(1);
	is_str(trace(), "i2 i3 s1 c1 s2 c3", "T1 hits X again; A: vCont;s:2;c once more");
	k_int3(1, BP_X);
	k_step(2);
	k_intr(3);
	poll_reports();
	ok(is_stop(&ra, 4, ENGINE_STOP_SWBREAK, 1, SIGTRAP) && th(2)->has_pending,
	   "  T1 hits X while T2's step ends: A hears of T1, T2's step is parked");
	trace();
	engine_resume(A, step2, 2);
	is_str(trace(), "s1",
	       "A steps T2 again: T1 first steps over X, T2 is not reported as stepped");
	poll_reports();
	ok(ra.n == 4, "  no STEP report before T2 has stepped again");
	teardown();
}

int main(void)
{
	if (!world_init())
		return 1;
	test_who_runs();
	test_interrupt_queued();
	test_breakpoint_owners();
	test_interrupt_after_int3();
	test_attach_queued_signal();
	test_step_owner();
	test_signals();
	test_busy();
	world_exit();
	return done_testing();
}
