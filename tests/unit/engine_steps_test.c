/*
 * The engine arbitration rules (docs/engines.md) on a fake kernel
 * (tests/lib/fake_kernel.h), continued from engine_rules_test.c: stepping
 * over a breakpoint other engines share, detach, watchpoints, exit and death.
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

/* Thread i ends its step over bp: the step is done, or, had the engine
 * dropped the step over, the thread hits bp again and everyone stops. */
static void step_over_ends(int i, uint64_t bp)
{
	if (p->step_over == th(i)) {
		k_step(i);
		return;
	}
	k_int3(i, bp);
	k_intr_all();
}

/* A fresh world: T2 has hit A's breakpoint at X, every thread stopped. */
static void t2_stopped_at_x(void)
{
	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	k_int3(2, BP_X);
	k_intr_all();
	poll_reports();
	trace();
}

static void test_step_over(void)
{
	static const struct engine_resume step2[] = {
		{.tid = TID(2), .action = ENGINE_STEP},
		{.tid = -1, .action = ENGINE_RUN},
	};
	struct arch_regs *r;

	diag("step over a breakpoint");
	t2_stopped_at_x();
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s2", "A continues from X: T2 alone is single-stepped");
	ok(p->step_over == th(2), "  as the step over");
	is_int(raw_byte(BP_X), text_byte(BP_X), "  with the original byte in memory");
	is_int(view_byte(B, BP_X), text_byte(BP_X), "  which is also what reads show");
	k_step(2);
	ok(raw_trap(BP_X), "step done: the trap is back");
	is_str(trace(), "c1 c2 c3", "  and everyone runs");
	ok(!p->step_over, "  step over finished");
	poll_reports();
	ok(ra.n == 1 && rb.n == 0, "  nobody hears of it");

	k_int3(2, BP_X);
	k_intr_all();
	poll_reports();
	trace();
	engine_resume(A, step2, 2);
	is_str(trace(), "s2", "A steps T2 from X: it steps over X alone first");
	k_step(2);
	is_str(trace(), "", "  done: nobody else ran");
	poll_reports();
	ok(is_stop(&ra, 3, ENGINE_STOP_STEP, 2, SIGTRAP), "  A gets its step");
	ok(raw_trap(BP_X), "  trap back");

	engine_bp_insert(A, ENGINE_BP_SW, BP_Y, 1);
	is_int(engine_regs(A, TID(2), &r), 0, "A reads T2's registers");
	arch_set_pc(engine_arch(A), r, BP_Y);
	is_int(engine_regs_store(A, TID(2), ARCH_RS_GP), 0, "A moves T2 from X to its Y (jump)");
	is_int(k_pc(2), BP_Y, "  the write reached the thread");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "c1 c2 c3", "  no step over Y: everyone runs");
	k_int3(2, BP_Y);
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 4, ENGINE_STOP_SWBREAK, 2, SIGTRAP) && last(&ra)->addr == BP_Y,
	   "  T2 hits Y at once, and A hears it");
	trace();

	is_int(engine_regs(A, TID(2), &r), 0, "A reads T2's registers at Y");
	arch_reg_write(engine_arch(A), r, 0, (const uint8_t *)"\x2a\0\0\0\0\0\0\0");
	is_int(engine_regs_store(A, TID(2), ARCH_RS_GP), 0, "A writes register 0, pc unchanged");
	is_int(k_reg(2, 0), 42, "  the write reached the thread");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s2", "  A continues: T2 steps over Y");
	step_over_ends(2, BP_Y);
	poll_reports();
	ok(ra.n == 4, "  A does not hear Y a second time");
	teardown();

	t2_stopped_at_x();
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s2", "T2 steps over X");
	engine_interrupt(B);
	is_str(trace(), "i2", "^C from B during the step over: T2 is interrupted");
	k_intr(2); /* before the step: pc still on X */
	ok(raw_trap(BP_X), "  T2 stops before stepping: trap back");
	poll_reports();
	ok(is_stop(&rb, 1, ENGINE_STOP_INTERRUPT, 2, SIGINT), "  B gets its ^C (at T2)");
	engine_resume(B, &all_run, 1);
	is_str(trace(), "s2", "B continues: T2, still on X, steps over it again");
	step_over_ends(2, BP_X);
	poll_reports();
	ok(ra.n == 1, "  A does not hear X a second time");
	teardown();
}

static void test_detach(void)
{
	static const struct engine_resume hold2[] = {
		{.tid = TID(2), .action = ENGINE_HOLD},
		{.tid = -1, .action = ENGINE_RUN},
	};

	diag("detach");
	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	engine_bp_insert(A, ENGINE_BP_SW, BP_Y, 1);
	engine_bp_insert(B, ENGINE_BP_SW, BP_Y, 1);
	engine_interrupt(A);
	k_intr_all();
	poll_reports();
	trace();
	engine_resume(A, hold2, 2);
	is_str(trace(), "c1 c3", "A holds T2, lets the others run");
	engine_detach(A);
	A = NULL;
	is_int(raw_byte(BP_X), text_byte(BP_X), "A detaches: its own breakpoint is removed");
	ok(raw_trap(BP_Y), "  the one B shares stays");
	is_str(trace(), "c2", "  its hold goes with it: T2 runs on for B");
	poll_reports();
	is_int(rb.n, 0, "  B notices nothing");
	engine_detach(B);
	B = NULL;
	/* (their stops, and the detach at each, go through leaving.c: the
	 * fake kernel hands statuses to the process, which is gone; see
	 * tests/e2e/xol_cond.t, kill -9 in place, and attach_stuck.t) */
	is_str(trace(), "i1 i2 i3",
	       "the last engine out asks every running thread to stop, and does not wait");
	is_int(raw_byte(BP_Y), text_byte(BP_Y), "  no trap is left in memory");
	teardown();

	setup();
	engine_interrupt(A);
	k_intr_all();
	poll_reports();
	trace();
	engine_detach(A);
	A = NULL;
	is_str(trace(), "c1 c2 c3", "a stopped engine detaches: the process runs on for B");
	k_signal(3, SIGUSR1);
	k_intr_all();
	poll_reports();
	ok(is_stop(&rb, 1, ENGINE_STOP_SIGNAL, 3, SIGUSR1), "B stops for SIGUSR1");
	trace();
	engine_detach(B);
	B = NULL;
	is_str(trace(), "d1 d2 d3:10", "  B leaves: T3 is detached with the signal it was to get");
	teardown();

	setup();
	engine_detach(B);
	B = NULL;
	is_str(trace(), "", "B leaves a running process A still has: no ptrace request");
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	k_int3(1, BP_X);
	k_signal(3, SIGUSR1);
	ok(th(3)->has_pending, "T1 hits X, T3 gets SIGUSR1 meanwhile: parked");
	k_intr_all();
	poll_reports();
	trace();
	engine_detach(A);
	A = NULL;
	is_str(trace(), "d1 d2 d3:10", "  A leaves: the parked signal goes with T3's detach");
	is_int(k_pc(1), BP_X, "  T1 left on X");
	is_int(raw_byte(BP_X), text_byte(BP_X), "  with the original byte there");
	teardown();

	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	engine_bp_insert(B, ENGINE_BP_SW, BP_X, 1);
	engine_bp_insert(B, ENGINE_BP_SW, BP_Y, 1);
	k_int3(2, BP_X);
	k_intr_all();
	poll_reports();
	ok(ra.n == 1 && rb.n == 1, "T2 hits X of A and B: both stop");
	trace();
	engine_resume(B, &all_run, 1);
	engine_resume(A, hold2, 2);
	is_str(trace(), "c1 c3", "B continues, A holds T2 on X");
	engine_detach(A);
	A = NULL;
	ok(raw_trap(BP_X), "A leaves: X stays, B owns it too");
	is_str(trace(), "i1 i3", "  T2 is free to step over X: the others are stopped first");
	k_int3(3, BP_Y);
	is_str(trace(), "", "T3 hits B's Y instead of stopping");
	k_intr(1);
	poll_reports();
	ok(is_stop(&rb, 2, ENGINE_STOP_SWBREAK, 3, SIGTRAP) && last(&rb)->addr == BP_Y,
	   "  B gets it");
	engine_resume(B, &all_run, 1);
	is_str(trace(), "s2", "B continues: T2 steps over X first, alone");
	ok(raw_byte(BP_X) == text_byte(BP_X) && raw_trap(BP_Y), "  only X is out");
	k_step(2);
	is_str(trace(), "s3", "  then T3 over Y, alone");
	ok(raw_trap(BP_X) && raw_byte(BP_Y) == text_byte(BP_Y), "  only Y is out");
	k_step(3);
	is_str(trace(), "c1 c2 c3", "  then everyone runs");
	ok(raw_trap(BP_X) && raw_trap(BP_Y), "  both traps in");
	poll_reports();
	is_int(rb.n, 2, "  no report for the step overs");
	teardown();
}

static void test_watchpoints(void)
{
	bool all = true;

	diag("watchpoints");
	setup();
	engine_interrupt(A);
	k_intr_all();
	poll_reports();
	trace();
	is_int(engine_bp_insert(A, ENGINE_BP_WRITE, DATA, 4), 0, "A: write watchpoint");
	for (int i = 1; i <= NTHREADS; i++)
		all = all && k_dr_watching(i, 0, DATA);
	ok(all, "  in every thread's debug registers");
	is_int(engine_bp_insert(A, ENGINE_BP_WRITE, DATA + 8, 8), 0, "A: 3 more");
	is_int(engine_bp_insert(A, ENGINE_BP_WRITE, DATA + 16, 8), 0, "  ...");
	is_int(engine_bp_insert(A, ENGINE_BP_WRITE, DATA + 24, 8), 0, "  ...");
	is_int(engine_bp_insert(B, ENGINE_BP_ACCESS, DATA + 64, 4), -ENOSPC,
	       "B: no debug register left: -ENOSPC");
	is_int(engine_bp_remove(A, ENGINE_BP_WRITE, DATA + 8, 8), 0, "A removes the 3");
	engine_bp_remove(A, ENGINE_BP_WRITE, DATA + 16, 8);
	engine_bp_remove(A, ENGINE_BP_WRITE, DATA + 24, 8);
	is_int(engine_bp_insert(B, ENGINE_BP_ACCESS, DATA + 64, 4), 0, "  now B gets one");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "c1 c2 c3", "A continues");
	k_watch(2, 0x1);
	is_str(trace(), "i1 i3", "T2 writes A's watched word: the others are stopped");
	k_intr_all();
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_WATCH, 2, SIGTRAP) && last(&ra)->addr == DATA &&
		   last(&ra)->watch == ARCH_DR_WRITE,
	   "  A gets WATCH write at the address");
	is_int(rb.n, 0, "  B, watching elsewhere, gets nothing");
	ok(k_dr_status_clear(2), "  DR6 hit bits cleared (x86)");
	engine_resume(A, &all_run, 1);
	k_watch(3, 0x2);
	k_intr_all();
	poll_reports();
	ok(is_stop(&rb, 1, ENGINE_STOP_WATCH, 3, SIGTRAP) && last(&rb)->watch == ARCH_DR_ACCESS,
	   "T3 touches B's word: B gets WATCH access");
	is_int(ra.n, 2, "  A nothing");
	engine_detach(A);
	engine_detach(B);
	A = B = NULL;
	all = true;
	for (int i = 1; i <= NTHREADS; i++)
		all = all && k_dr_clear(i);
	ok(all, "after the last detach every thread's debug registers are clear");
	teardown();
}

static void test_exit(void)
{
	diag("exit and death");
	setup();
	engine_bp_insert(A, ENGINE_BP_SW, BP_X, 1);
	k_int3(1, BP_X);
	is_str(trace(), "i2 i3", "T1 hits X: the others are being stopped");
	k_die(3, W_EXITCODE(0, 0));
	poll_reports();
	is_int(ra.n, 0, "T3 exits meanwhile: still waiting for T2");
	k_intr(2);
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_SWBREAK, 1, SIGTRAP), "  then A gets its report");
	is_int(engine_threads(A, NULL, 0), 2, "  two threads left");
	engine_resume(A, &all_run, 1);
	is_str(trace(), "s1", "A continues: T1 steps over X");
	k_step(1);
	is_str(trace(), "c1 c2", "  then both threads run");
	k_die(2, W_EXITCODE(0, 0));
	k_die(1, W_EXITCODE(7, 0));
	poll_reports();
	ok(is_stop(&ra, 2, ENGINE_STOP_EXITED, 1, 0) && last(&ra)->status == 7,
	   "the process exits with 7: A gets EXITED 7");
	ok(is_stop(&rb, 1, ENGINE_STOP_EXITED, 1, 0) && last(&rb)->status == 7, "  so does B");
	ok(!engine_alive(A) && !engine_alive(B), "  both engines are dead");
	is_int(engine_resume(A, &all_run, 1), -ESRCH, "  a dead engine cannot resume");
	engine_detach(A);
	engine_detach(B);
	A = B = NULL;
	is_str(trace(), "", "leaving a dead process asks nothing of ptrace");
	teardown();

	setup();
	k_die(2, SIGKILL);
	k_die(3, SIGKILL);
	k_die(1, SIGKILL);
	poll_reports();
	ok(is_stop(&ra, 1, ENGINE_STOP_KILLED, 1, SIGKILL), "killed: A gets KILLED 9");
	ok(is_stop(&rb, 1, ENGINE_STOP_KILLED, 1, SIGKILL), "  so does B");
	teardown();
}

int main(void)
{
	if (!world_init())
		return 1;
	test_step_over();
	test_detach();
	if (have_debug_regs())
		test_watchpoints();
	else
		diag("watchpoints: none on this CPU yet (docs/arm64.md), not tested");
	test_exit();
	world_exit();
	return done_testing();
}
