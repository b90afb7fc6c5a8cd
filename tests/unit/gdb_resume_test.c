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
/* START_PC and the two bytes after it: two steps stay in the range. */
#define IN3 RANGE(401080, 401083)

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

int main(void)
{
	test_range_step();
	test_refused_range();
	return done_testing();
}
