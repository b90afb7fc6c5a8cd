/*
 * Unit tests for the execution packets (src/gdb/gdb_resume.c) on the fake
 * kernel (tests/unit/gdb_world.h): what each resume asks of the threads,
 * the stop reply that answers it, range stepping, and hostile packets,
 * each of which must get an "E" reply and leave the threads as they were.
 */
#include <errno.h>
#include <stdio.h>

#include "gdb_world.h"
#include "tap.h"

#define RANGE(lo, hi) "r" #lo "," #hi
/* START_PC and the two instructions after it: two steps stay in the range. */
#ifdef __aarch64__
#define IN3 RANGE(401080, 40108c)
#else
#define IN3 RANGE(401080, 401083)
#endif

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void test_range_step(void)
{
	struct gdb_session *s = gw_start();

	diag("vCont;r: steps go on, unreported, while the pc stays in the range");
	is_str(gw_ask(s, "vCont;" IN3 ":" GW_TID(0)), "", "vCont;r:T1: no reply yet");
	is_str(trace(), "s1", "  T1 is stepped, the others stay stopped");
	is_str(gw_event(s, GW_STEP, 1, 0), "", "step 1 (pc +1, in the range): no reply");
	is_str(trace(), "s1", "  T1 is stepped again");
	is_str(gw_event(s, GW_STEP, 1, 0), "", "step 2 (pc +2, in the range): no reply");
	is_str(trace(), "s1", "  and again");
	ok(starts_with(gw_event(s, GW_STEP, 1, 0), "T05"),
	   "step 3 leaves the range: the stop reply");
	is_str(trace(), "", "  nothing runs");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

/*
 * A vCont whose range action parses but whose next action does not is
 * refused whole: the range it named must not be left set for the next
 * resume. A legacy 's' shows it (vCont starts by clearing the range): its
 * step ends inside the range of the refused packet, and must be reported.
 */
static void test_refused_range(void)
{
	struct gdb_session *s = gw_start();

	diag("a refused vCont leaves no range behind");
	gw_ask(s, "vCont;" RANGE(401080, 401081) ":" GW_TID(0));
	trace();
	ok(starts_with(gw_event(s, GW_STEP, 1, 0), "T05"), "a range step of one byte: reported");
	is_str(gw_ask(s, "vCont;" RANGE(401081, 401090) ":" GW_TID(0) ";Q"), "E16",
	       "vCont;r...;Q (a bad second action): E16");
	is_str(trace(), "", "  nothing resumed");
	is_str(gw_ask(s, "Hc" GW_TID(0)), "OK", "Hc T1");
	is_str(gw_ask(s, "s"), "", "s: no reply yet");
	is_str(trace(), "s1 c2 c3", "  T1 is stepped, the others run");
	ok(starts_with(gw_event(s, GW_STEP, 1, 0), "T05"),
	   "the step ends in the refused packet's range: reported, not stepped on");
	is_str(trace(), "i2 i3", "  the others stop for the report; T1 is not stepped again");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

/* The stop reply of T1 for a signal: "T<sig>thread:<T1>;" and the expedited registers. */
#ifdef __aarch64__ /* x29, sp, pc */
#define T1_STOP(sig) "T" sig "thread:4c4b40;1d:0000000000000000;1f:0000000000000000;20:"
#else /* rbp, rsp, rip */
#define T1_STOP(sig) "T" sig "thread:4c4b40;06:0000000000000000;07:0000000000000000;10:"
#endif

static void test_question_and_query(void)
{
	struct gdb_session *s = gw_start();

	diag("?, vCont?");
	ok(starts_with(gw_ask(s, "?"), T1_STOP("02")), "?: the stop of the attach, T1's SIGINT");
	is_str(gw_ask(s, "vCont?"), "vCont;c;C;s;S;t;r", "vCont?: every action we take");
	is_str(trace(), "", "  nothing runs");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_vcont_actions(void)
{
	struct gdb_session *s = gw_start();

	diag("vCont: what each action asks of the threads; the stop that answers");
	is_str(gw_ask(s, "vCont;c"), "", "vCont;c: no reply yet");
	is_str(trace(), "c1 c2 c3", "  every thread runs");
	ok(starts_with(gw_event(s, GW_INT3, 2, 0x40), "T05thread:4c4b41;"),
	   "an int3 that is no breakpoint of ours in T2: T05 for T2");
	is_str(trace(), "i1 i3", "  the others are stopped for it");

	is_str(gw_ask(s, "vCont;s:" GW_TID(1) ";c"), "", "vCont;s:T2;c");
	is_str(trace(), "c1 s2 c3", "  T2 steps, the others run");
	ok(starts_with(gw_event(s, GW_STEP, 2, 0), "T05thread:4c4b41;"), "T2's step: T05");
	trace();

	/*
	 * A signal goes with the resume of a thread stopped for one (a
	 * signal-delivery-stop); the other engine B lets it pass, or its
	 * plain resume would suppress it (docs/engines.md).
	 */
	set_pass(B, SIGUSR2, true);
	is_str(gw_ask(s, "vCont;c"), "", "vCont;c");
	trace();
	ok(starts_with(gw_event(s, GW_SIGNAL, 1, 11), "T1fthread:4c4b40;"),
	   "T1 gets a SIGUSR2 (host 12): T1f, gdb's number");
	trace();
	is_str(gw_ask(s, "vCont;C1f:" GW_TID(0) ";t"), "", "vCont;C1f:T1;t");
	is_str(trace(), "c1:12", "  T1 runs with host signal 12, the others stay (t)");
	ok(starts_with(gw_event(s, GW_INT3, 1, 0x40), "T05thread:4c4b40;"), "T1 traps: T05");
	trace();

	is_str(gw_ask(s, "vCont;c:" GW_TID(2)), "", "vCont;c:T3 alone");
	is_str(trace(), "c3", "  only T3 runs: unnamed threads stay stopped");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_legacy(void)
{
	struct gdb_session *s = gw_start();

	diag("c, C, s, S: the Hc thread acts, the others run");
	is_str(gw_ask(s, "Hc" GW_TID(1)), "OK", "Hc T2");
	set_pass(B, SIGUSR1, true);
	is_str(gw_ask(s, "c"), "", "c: no reply yet");
	is_str(trace(), "c1 c2 c3", "  every thread runs");
	ok(starts_with(gw_event(s, GW_SIGNAL, 2, 9), "T1ethread:4c4b41;"),
	   "T2 gets a SIGUSR1 (host 10): T1e");
	trace();
	is_str(gw_ask(s, "C1e"), "", "C1e: no reply yet");
	is_str(trace(), "c1 c2:10 c3", "  T2 runs with host SIGUSR1, the others run too");
	ok(starts_with(gw_event(s, GW_INT3, 2, 0x40), "T05thread:4c4b41;"), "T2 traps: T05");
	trace();
	is_str(gw_ask(s, "s"), "", "s: no reply yet");
	is_str(trace(), "c1 s2 c3", "  T2 steps, the others run");
	ok(starts_with(gw_event(s, GW_STEP, 2, 0), "T05thread:4c4b41;"), "T2's step: T05");
	trace();
	is_str(gw_ask(s, "c401010"), "", "c401010: continue at an address");
	is_int((long)k_pc(2), 0x401010, "  T2's pc was set first");
	is_str(trace(), "c1 c2 c3", "  every thread runs");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_hostile(void)
{
	static const struct gw_refusal hostile[] = {
		{"vCont", "E16", "vCont without an action"},
		{"vCont;", "E16", "an empty action"},
		{"vCont;c;", "E16", "a trailing ';'"},
		{"vContc", "", "no ';' (another packet: unknown)"},
		{"vCont;x", "E16", "an unknown action"},
		{"vCont;C", "E16", "C without a signal"},
		{"vCont;Czz", "E16", "C with a bad signal"},
		{"vCont;C12345678901234567", "E16", "C with a signal past 64 bits"},
		{"vCont;cX", "E16", "junk after an action"},
		{"vCont;c:", "E16", "a ':' without a thread"},
		{"vCont;c:zz", "E16", "a bad thread id"},
		{"vCont;c:p3e7.1", "E03", "a process not ours"},
		{"vCont;r401080", "E16", "r without its end"},
		{"vCont;r401080,", "E16", "r with an empty end"},
		{"vCont;r,401090", "E16", "r with an empty start"},
		{"vCont;r401080;401090", "E16", "r with ';' for ','"},
		{"vCont;r1ffffffffffffffff,2:" GW_TID(0), "E16", "r with a start past 64 bits"},
		{"vCont;s:" GW_TID(0) ";c:zz", "E16", "a good action, then a bad one"},
		{"C", "E16", "C without a signal"},
		{"Szz", "E16", "S with a bad signal"},
		{"C1e,401000", "E16", "C with ',' for ';'"},
		{"c40zz", "E16", "c with a bad address"},
		{"c1ffffffffffffffff", "E16", "c with an address past 64 bits"},
	};
	struct gdb_session *s = gw_start();
	char many[8 + 65 * 2] = "vCont";

	diag("hostile execution packets: refused, nothing resumed");
	gw_refused(s, hostile, sizeof(hostile) / sizeof(hostile[0]));
	for (int i = 0; i < 65; i++)
		strcat(many, ";t");
	gw_refused(s, &(struct gw_refusal){many, "E16", "65 actions (64 at most)"}, 1);
	is_str(gw_ask(s, "vCont;c"), "", "after all that, vCont;c still resumes");
	is_str(trace(), "c1 c2 c3", "  every thread");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_vctrlc(void)
{
	struct gdb_session *s = gw_start();

	diag("vCtrlC");
	gw_ask(s, "vCont;c");
	trace();
	ok(starts_with(gw_ask(s, "vCtrlC"), "OK|T02thread:4c4b40;"),
	   "vCtrlC while running: OK, then the stop (SIGINT)");
	is_str(trace(), "i1 i2 i3", "  every thread was interrupted");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

/*
 * A step a signal overtook is given up (step_stale: its trap may still
 * come at a syscall's exit); the program's own int3 after it is no such
 * trap and must be reported, not swallowed.
 */
static void test_stale_step_int3(void)
{
	struct gdb_session *s = gw_start();

	diag("a given-up step, then the program's own int3");
	is_str(gw_ask(s, "Hc" GW_TID(1)), "OK", "Hc T2");
	set_pass(B, SIGUSR1, true);
	is_str(gw_ask(s, "s"), "", "s: no reply yet");
	ok(starts_with(gw_event(s, GW_SIGNAL, 2, 9), "T1ethread:4c4b41;"),
	   "a SIGUSR1 comes instead of the step's trap: T1e");
	trace();
	is_str(gw_ask(s, "C1e"), "", "C1e: no reply yet");
	ok(starts_with(gw_event(s, GW_INT3, 2, 0x40), "T05thread:4c4b41;"),
	   "T2 runs into an int3 of its own: T05, not swallowed as the step's");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

int main(void)
{
	test_question_and_query();
	test_vcont_actions();
	test_legacy();
	test_stale_step_int3();
	test_range_step();
	test_refused_range();
	test_hostile();
	test_vctrlc();
	return done_testing();
}
