/*
 * Unit tests for the processes of a session and its all-stop view
 * (src/gdb/gdb_procs.c) on the fake kernel (tests/unit/gdb_world.h): a
 * death gdb has not heard of is kept for its next resume, a detach or a
 * kill forgets the process (the packets of gdb_detach.c drive it), a
 * resume naming no process of ours resumes nothing, the list has a bound;
 * and hostile D and vKill packets are refused with the process kept.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>

#include "gdb_world.h"
#include "tap.h"

/* Every thread of the fake process dies of sig while gdb has it stopped. */
static void killed_outside(struct gdb_session *s, int sig)
{
	for (int i = NTHREADS; i >= 1; i--)
		k_die(i, sig);
	fw_input(s, "", 0); /* the event loop's turn: reports */
}

static void test_death_kept(void)
{
	struct gdb_session *s = gw_start();

	diag("a death while gdb has the process stopped answers its next resume");
	killed_outside(s, SIGKILL);
	is_str(gw_replies(s), "", "killed from outside: nothing sent (gdb is not waiting)");
	ok(gdb_procs_death_pending(s, PID), "  the death is kept");
	ok(gdb_proc_of(s, PID) != NULL, "  and so is the process");
	is_str(gw_ask(s, "vCont;c"), "X09", "vCont;c: answered at once, X09");
	is_str(trace(), "", "  nothing resumed");
	ok(gdb_proc_of(s, PID) == NULL && s->engine == NULL, "  the process is forgotten now");
	is_str(gw_ask(s, "?"), "X09", "?: the death, again");
	is_str(gw_ask(s, "g"), "E03", "g: no process (E03)");
	is_str(gw_ask(s, "vCont;c"), "E03", "vCont;c: no process (E03)");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_exit_kept(void)
{
	struct gdb_session *s = gw_start();

	diag("an exit, likewise");
	for (int i = NTHREADS; i >= 1; i--)
		k_die(i, W_EXITCODE(i == 1 ? 7 : 0, 0));
	fw_input(s, "", 0);
	is_str(gw_replies(s), "", "exited while stopped: nothing sent");
	is_str(gw_ask(s, "c"), "W07", "c: answered at once, W07");
	is_str(trace(), "", "  nothing resumed");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_detach(void)
{
	static const struct gw_refusal hostile[] = {
		{"D;3e7", "E03", "D;<a pid not ours>"},
		{"D;zz", "E16", "D;<not hex>"},
		{"D;", "E16", "D; without a pid"},
		{"D4c4b40", "", "D without ';' is no D packet: unknown"},
		{"D;4c4b40x", "E16", "D;<pid> and junk"},
		{"D;1ffffffffffffffff", "E16", "D;<a pid past 64 bits>"},
		{"D;ffffffff", "E03", "D;<a pid past pid_t>"},
	};
	struct gdb_session *s = gw_start();

	diag("D: the process is forgotten, its threads go on");
	gw_refused(s, hostile, sizeof(hostile) / sizeof(hostile[0]));
	ok(gdb_proc_of(s, PID) == s->procs && s->engine, "  the process is still the session's");
	is_str(gw_ask(s, "D;4c4b40"), "OK", "D;<our pid>: OK");
	is_str(trace(), "c1 c2 c3", "  the threads run on (the other engine lets them)");
	ok(!s->nprocs && !s->engine, "  the session has no process now");
	is_str(gw_ask(s, "?"), "W00", "?: no process, W00");
	is_str(gw_ask(s, "g"), "E03", "g: E03");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_vkill(void)
{
	static const struct gw_refusal hostile[] = {
		{"vKill", "E16", "vKill alone"},
		{"vKill;", "E16", "vKill; without a pid"},
		{"vKill;zz", "E16", "vKill;<not hex>"},
		{"vKill;4c4b40;", "E16", "vKill;<pid>; and more"},
		{"vKill;1ffffffffffffffff", "E16", "vKill;<past 64 bits>"},
		{"vKill;3e7", "E03", "vKill;<a pid not ours>"},
		{"vKill;ffffffff", "E03", "vKill;<past pid_t>"},
	};
	struct gdb_session *s = gw_start();

	diag("vKill: refused unless it names our process");
	gw_refused(s, hostile, sizeof(hostile) / sizeof(hostile[0]));
	ok(s->nprocs == 1 && s->engine, "  the process is still the session's");
	is_str(gw_ask(s, "vKill;4c4b40"), "OK", "vKill;<our pid>: OK");
	ok(!s->nprocs && !s->engine && s->killed, "  the session let it go, killed");
	is_str(gw_ask(s, "vKill;4c4b40"), "E03", "vKill again: E03");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_bound(void)
{
	static struct rec extra[GDB_MAX_PROCS];
	struct gdb_session *s = gw_start();
	size_t added = 0;
	int rc = 0;

	diag("at most GDB_MAX_PROCS processes");
	while (rc == 0 && added < GDB_MAX_PROCS) {
		struct engine *e = engine_make(&extra[added], "extra");

		rc = gdb_proc_add(s, e);
		if (rc < 0)
			engine_detach(e);
		else
			added++;
	}
	is_int(rc, -ENOSPC, "adding past the bound: -ENOSPC");
	is_int((int)s->nprocs, GDB_MAX_PROCS, "  the list is full, no more");
	is_int((int)added, GDB_MAX_PROCS - 1, "  one was there, %d were added", GDB_MAX_PROCS - 1);
	while (s->nprocs > 1) {
		struct engine *e = s->procs[s->nprocs - 1].e;

		gdb_proc_detach(s, e);
	}
	ok(s->nprocs == 1 && s->engine == s->procs[0].e, "  they go again; the first is selected");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

int main(void)
{
	test_death_kept();
	test_exit_kept();
	test_detach();
	test_vkill();
	test_bound();
	return done_testing();
}
