/*
 * Unit tests for the stop replies (src/gdb/gdb_stop.c) on the fake kernel
 * (tests/unit/gdb_world.h): every kind of engine stop as protocol text,
 * with and without multiprocess, with T or T's thread turned off, for
 * stops of a process that is not the session's and with values out of
 * range; then the replies to real events (a breakpoint, a watchpoint, a
 * signal, the process's end) as gdb receives them.
 */
#include <signal.h>
#include <stdio.h>

#include "gdb_world.h"
#include "tap.h"

/* The expedited registers of a thread stopped at pc, as the fake kernel has them. */
#ifdef __aarch64__ /* x29, sp, pc */
#define REGS(pc) "1d:0000000000000000;1f:0000000000000000;20:" pc "0000000000;"
#else /* rbp, rsp, rip */
#define REGS(pc) "06:0000000000000000;07:0000000000000000;10:" pc "0000000000;"
#endif
#define AT_START REGS("801040")

/* A stop of process pid (all designated: the rest zero). */
#define STOP_OF(pid_, kind_, tid_, ...)                                                            \
	((struct engine_stop){.kind = (kind_), .pid = (pid_), .tid = (tid_), __VA_ARGS__})
#define STOP(kind_, tid_, ...) STOP_OF(PID, kind_, tid_, __VA_ARGS__)

/* A stop and the reply it must become. */
struct stop_case {
	struct engine_stop st;
	const char *want;
	const char *why;
};

static void check_replies(struct gdb_session *s, const struct stop_case *c, size_t n)
{
	struct buf b;

	buf_init(&b);
	for (size_t i = 0; i < n; i++) {
		buf_reset(&b);
		gdb_stop_reply(s, &c[i].st, &b);
		is_mem(b.data ? b.data : "", b.len, c[i].want, strlen(c[i].want), "%s", c[i].why);
	}
	buf_free(&b);
}

#define T2	 TID(2)
#define N(cases) (sizeof(cases) / sizeof(cases[0]))

static void test_kinds(void)
{
	static const struct stop_case kinds[] = {
		{STOP(ENGINE_STOP_SIGNAL, T2, .sig = SIGUSR1), "T1ethread:4c4b41;" AT_START,
		 "a signal: T<gdb's number>, thread, registers"},
		{STOP(ENGINE_STOP_SWBREAK, T2), "T05thread:4c4b41;" AT_START "swbreak:;",
		 "a breakpoint: swbreak"},
		{STOP(ENGINE_STOP_HWBREAK, T2), "T05thread:4c4b41;" AT_START "hwbreak:;",
		 "a hardware breakpoint: hwbreak"},
		{STOP(ENGINE_STOP_WATCH, T2, .watch = ARCH_DR_WRITE, .addr = 0x601008),
		 "T05thread:4c4b41;" AT_START "watch:601008;", "a write watchpoint"},
		{STOP(ENGINE_STOP_WATCH, T2, .watch = ARCH_DR_READ, .addr = 0x601008),
		 "T05thread:4c4b41;" AT_START "rwatch:601008;", "a read watchpoint"},
		{STOP(ENGINE_STOP_WATCH, T2, .watch = ARCH_DR_ACCESS, .addr = 0x601008),
		 "T05thread:4c4b41;" AT_START "awatch:601008;", "an access watchpoint"},
		{STOP(ENGINE_STOP_STEP, T2), "T05thread:4c4b41;" AT_START,
		 "a step: T05, no reason"},
		{STOP(ENGINE_STOP_INTERRUPT, T2), "T02thread:4c4b41;" AT_START,
		 "an interrupt: SIGINT"},
		{STOP(ENGINE_STOP_STOPPED, T2), "T00thread:4c4b41;" AT_START,
		 "stopped as asked (non-stop): T00"},
		{STOP(ENGINE_STOP_SYSCALL_ENTRY, T2, .sysno = 0x3c),
		 "T05thread:4c4b41;" AT_START "syscall_entry:3c;", "a syscall's entry"},
		{STOP(ENGINE_STOP_SYSCALL_RETURN, T2, .sysno = 1),
		 "T05thread:4c4b41;" AT_START "syscall_return:1;", "a syscall's return"},
		{STOP(ENGINE_STOP_FORK, T2, .child = 0x1234),
		 "T05thread:4c4b41;" AT_START "fork:1234;", "a fork: the child"},
		{STOP(ENGINE_STOP_VFORK, T2, .child = 0x1234),
		 "T05thread:4c4b41;" AT_START "vfork:1234;", "a vfork: the child"},
		{STOP(ENGINE_STOP_VFORK_DONE, T2), "T05thread:4c4b41;" AT_START "vforkdone:;",
		 "a vfork done"},
		{STOP(ENGINE_STOP_THREAD_CREATED, T2), "T05thread:4c4b41;" AT_START "create:;",
		 "a new thread"},
		{STOP(ENGINE_STOP_EXITED, PID, .status = 3), "W03", "the exit: W and the code"},
		{STOP(ENGINE_STOP_KILLED, PID, .sig = SIGKILL), "X09",
		 "killed: X and gdb's signal number"},
		{STOP(ENGINE_STOP_THREAD_EXITED, T2, .status = 7), "w7;4c4b41",
		 "a thread's exit: w, its code, the thread"},
		{STOP(ENGINE_STOP_NO_RESUMED, T2), "N", "no thread left to run: N"},
	};
	struct gdb_session *s = gw_start();

	diag("every kind of stop as text");
	check_replies(s, kinds, N(kinds));
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_multiprocess_and_disabled(void)
{
	static const struct stop_case multi[] = {
		{STOP(ENGINE_STOP_SWBREAK, T2), "T05thread:p4c4b40.4c4b41;" AT_START "swbreak:;",
		 "the thread as p<pid>.<tid>"},
		{STOP(ENGINE_STOP_FORK, T2, .child = 0x1234),
		 "T05thread:p4c4b40.4c4b41;" AT_START "fork:p1234.1234;", "a fork's child, too"},
		{STOP(ENGINE_STOP_EXITED, PID, .status = 0), "W00;process:4c4b40",
		 "the exit names the process"},
		{STOP(ENGINE_STOP_KILLED, PID, .sig = SIGSEGV), "X0b;process:4c4b40",
		 "so does a kill"},
		{STOP(ENGINE_STOP_THREAD_EXITED, T2, .status = 0), "w0;p4c4b40.4c4b41",
		 "and a thread's exit"},
	};
	struct gdb_session *s = gw_start();

	diag("multiprocess; T turned off");
	ok(strstr(gw_ask(s, "qSupported:multiprocess+;swbreak+"), "multiprocess+") != NULL,
	   "qSupported:multiprocess+");
	check_replies(s, multi, N(multi));
	s->server->disabled = GDB_DISABLE_TTHREAD;
	check_replies(s,
		      &(struct stop_case){STOP(ENGINE_STOP_SIGNAL, T2, .sig = SIGUSR1),
					  "T1e" AT_START, "--disable-packet T-thread: no thread"},
		      1);
	s->server->disabled = GDB_DISABLE_T;
	check_replies(s,
		      &(struct stop_case){STOP(ENGINE_STOP_SWBREAK, T2), "S05",
					  "--disable-packet T: S and the signal only"},
		      1);
	s->server->disabled = 0;
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_hostile_values(void)
{
	static const struct stop_case hostile[] = {
		{STOP(ENGINE_STOP_WATCH, T2, .watch = 99, .addr = 0x601008),
		 "T05thread:4c4b41;" AT_START, "an unknown watchpoint kind: no reason"},
		{STOP(ENGINE_STOP_WATCH, T2, .watch = -1), "T05thread:4c4b41;" AT_START,
		 "a negative one: no reason"},
		{STOP(ENGINE_STOP_EXITED, PID, .status = 0x1234), "W34",
		 "an exit code past a byte: its low byte"},
		{STOP_OF(4242, ENGINE_STOP_SIGNAL, 4243, .sig = SIGUSR1), "T1ethread:1093;",
		 "a stop of a process not ours: no registers"},
		{STOP_OF(4242, ENGINE_STOP_EXEC, 4242), "T05thread:1092;",
		 "an exec of a process not ours: no path"},
		{STOP(ENGINE_STOP_SIGNAL, TID(9), .sig = SIGUSR1), "T1ethread:4c4b48;",
		 "a thread not ours: no registers"},
		{STOP((enum engine_stop_kind)77, T2), "T05thread:4c4b41;" AT_START,
		 "an unknown kind: a plain T05"},
	};
	struct gdb_session *s = gw_start();

	diag("values out of range: never more than the protocol allows");
	check_replies(s, hostile, N(hostile));
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_events(void)
{
	struct gdb_session *s = gw_start();
	char z0[64];

	diag("replies to real events");
	gw_ask(s, "qSupported:swbreak+;hwbreak+");
	snprintf(z0, sizeof(z0), "Z0,%llx,1", (unsigned long long)BP_X);
	is_str(gw_ask(s, z0), "OK", "Z0 at X");
	gw_ask(s, "vCont;c");
	is_str(gw_event(s, GW_INT3, 3, (int)(BP_X - TEXT)),
	       "T05thread:4c4b42;" REGS("101040") "swbreak:;",
	       "T3 hits X: swbreak, the pc back on the breakpoint");
	z0[0] = 'z';
	is_str(gw_ask(s, z0), "OK", "z0 at X (nothing to step over)");
	if (have_debug_regs()) {
		is_str(gw_ask(s, "Z2,601000,8"), "OK", "Z2: a write watchpoint");
		trace();
		is_str(gw_ask(s, "vCont;c"), "", "vCont;c");
		is_str(trace(), "c1 c2 c3", "  every thread runs");
		is_str(gw_event(s, GW_WATCH, 1, 1), "T05thread:4c4b40;" AT_START "watch:601000;",
		       "T1 writes there: watch and the address");
	} else {
		is_str(gw_ask(s, "Z2,601000,8"), "E1c",
		       "Z2: no debug registers on this CPU yet: ENOSPC");
	}
	is_str(gw_ask(s, "vCont;c"), "", "vCont;c");
	is_str(gw_event(s, GW_DIE, 3, 0), "", "T3 exits: nothing yet");
	is_str(gw_event(s, GW_DIE, 2, 0), "", "T2 exits: nothing yet");
	is_str(gw_event(s, GW_DIE, 1, 5), "W05", "the leader exits with 5: W05");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

int main(void)
{
	test_kinds();
	test_multiprocess_and_disabled();
	test_hostile_values();
	test_events();
	return done_testing();
}
