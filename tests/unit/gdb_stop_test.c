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
#define REGS(pc) "06:0000000000000000;07:0000000000000000;10:" pc "0000000000;"
#define AT_START REGS("801040")

/* A stop of process pid (all designated: the rest zero). */
#define STOP_OF(pid_, kind_, tid_, ...)                                                            \
	((struct engine_stop){.kind = (kind_), .pid = (pid_), .tid = (tid_), __VA_ARGS__})
#define STOP(kind_, tid_, ...) STOP_OF(PID, kind_, tid_, __VA_ARGS__)

static const char *reply_of(struct gdb_session *s, struct engine_stop st)
{
	static struct buf b;

	buf_reset(&b);
	gdb_stop_reply(s, &st, &b);
	buf_putc(&b, '\0');
	return b.data;
}

static void test_kinds(void)
{
	struct gdb_session *s = gw_start();
	const pid_t t2 = TID(2);

	diag("every kind of stop as text");
	is_str(reply_of(s, STOP(ENGINE_STOP_SIGNAL, t2, .sig = SIGUSR1)),
	       "T1ethread:4c4b41;" AT_START, "a signal: T<gdb's number>, thread, registers");
	is_str(reply_of(s, STOP(ENGINE_STOP_SWBREAK, t2)), "T05thread:4c4b41;" AT_START "swbreak:;",
	       "a breakpoint: swbreak");
	is_str(reply_of(s, STOP(ENGINE_STOP_HWBREAK, t2)), "T05thread:4c4b41;" AT_START "hwbreak:;",
	       "a hardware breakpoint: hwbreak");
	is_str(reply_of(s, STOP(ENGINE_STOP_WATCH, t2, .watch = ARCH_DR_WRITE, .addr = 0x601008)),
	       "T05thread:4c4b41;" AT_START "watch:601008;", "a write watchpoint");
	is_str(reply_of(s, STOP(ENGINE_STOP_WATCH, t2, .watch = ARCH_DR_READ, .addr = 0x601008)),
	       "T05thread:4c4b41;" AT_START "rwatch:601008;", "a read watchpoint");
	is_str(reply_of(s, STOP(ENGINE_STOP_WATCH, t2, .watch = ARCH_DR_ACCESS, .addr = 0x601008)),
	       "T05thread:4c4b41;" AT_START "awatch:601008;", "an access watchpoint");
	is_str(reply_of(s, STOP(ENGINE_STOP_STEP, t2)), "T05thread:4c4b41;" AT_START,
	       "a step: T05, no reason");
	is_str(reply_of(s, STOP(ENGINE_STOP_INTERRUPT, t2)), "T02thread:4c4b41;" AT_START,
	       "an interrupt: SIGINT");
	is_str(reply_of(s, STOP(ENGINE_STOP_STOPPED, t2)), "T00thread:4c4b41;" AT_START,
	       "stopped as asked (non-stop): T00");
	is_str(reply_of(s, STOP(ENGINE_STOP_SYSCALL_ENTRY, t2, .sysno = 0x3c)),
	       "T05thread:4c4b41;" AT_START "syscall_entry:3c;", "a syscall's entry");
	is_str(reply_of(s, STOP(ENGINE_STOP_SYSCALL_RETURN, t2, .sysno = 1)),
	       "T05thread:4c4b41;" AT_START "syscall_return:1;", "a syscall's return");
	is_str(reply_of(s, STOP(ENGINE_STOP_FORK, t2, .child = 0x1234)),
	       "T05thread:4c4b41;" AT_START "fork:1234;", "a fork: the child");
	is_str(reply_of(s, STOP(ENGINE_STOP_VFORK, t2, .child = 0x1234)),
	       "T05thread:4c4b41;" AT_START "vfork:1234;", "a vfork: the child");
	is_str(reply_of(s, STOP(ENGINE_STOP_VFORK_DONE, t2)),
	       "T05thread:4c4b41;" AT_START "vforkdone:;", "a vfork done");
	is_str(reply_of(s, STOP(ENGINE_STOP_THREAD_CREATED, t2)),
	       "T05thread:4c4b41;" AT_START "create:;", "a new thread");
	is_str(reply_of(s, STOP(ENGINE_STOP_EXITED, PID, .status = 3)), "W03",
	       "the exit: W and the code");
	is_str(reply_of(s, STOP(ENGINE_STOP_KILLED, PID, .sig = SIGKILL)), "X09",
	       "killed: X and gdb's signal number");
	is_str(reply_of(s, STOP(ENGINE_STOP_THREAD_EXITED, t2, .status = 7)), "w7;4c4b41",
	       "a thread's exit: w, its code, the thread");
	is_str(reply_of(s, STOP(ENGINE_STOP_NO_RESUMED, t2)), "N", "no thread left to run: N");
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_multiprocess_and_disabled(void)
{
	struct gdb_session *s = gw_start();
	const pid_t t2 = TID(2);

	diag("multiprocess; T turned off");
	ok(strstr(gw_ask(s, "qSupported:multiprocess+;swbreak+"), "multiprocess+") != NULL,
	   "qSupported:multiprocess+");
	is_str(reply_of(s, STOP(ENGINE_STOP_SWBREAK, t2)),
	       "T05thread:p4c4b40.4c4b41;" AT_START "swbreak:;", "the thread as p<pid>.<tid>");
	is_str(reply_of(s, STOP(ENGINE_STOP_FORK, t2, .child = 0x1234)),
	       "T05thread:p4c4b40.4c4b41;" AT_START "fork:p1234.1234;", "a fork's child, too");
	is_str(reply_of(s, STOP(ENGINE_STOP_EXITED, PID, .status = 0)), "W00;process:4c4b40",
	       "the exit names the process");
	is_str(reply_of(s, STOP(ENGINE_STOP_KILLED, PID, .sig = SIGSEGV)), "X0b;process:4c4b40",
	       "so does a kill");
	is_str(reply_of(s, STOP(ENGINE_STOP_THREAD_EXITED, t2, .status = 0)), "w0;p4c4b40.4c4b41",
	       "and a thread's exit");
	s->server->disabled = GDB_DISABLE_TTHREAD;
	is_str(reply_of(s, STOP(ENGINE_STOP_SIGNAL, t2, .sig = SIGUSR1)), "T1e" AT_START,
	       "--disable-packet T-thread: no thread");
	s->server->disabled = GDB_DISABLE_T;
	is_str(reply_of(s, STOP(ENGINE_STOP_SWBREAK, t2)), "S05",
	       "--disable-packet T: S and the signal only");
	s->server->disabled = 0;
	ok(gw_stop(s), "  (the fake kernel saw nothing wrong)");
}

static void test_hostile_values(void)
{
	struct gdb_session *s = gw_start();
	const pid_t t2 = TID(2);

	diag("values out of range: never more than the protocol allows");
	is_str(reply_of(s, STOP(ENGINE_STOP_WATCH, t2, .watch = 99, .addr = 0x601008)),
	       "T05thread:4c4b41;" AT_START, "an unknown watchpoint kind: no reason");
	is_str(reply_of(s, STOP(ENGINE_STOP_WATCH, t2, .watch = -1)), "T05thread:4c4b41;" AT_START,
	       "a negative one: no reason");
	is_str(reply_of(s, STOP(ENGINE_STOP_EXITED, PID, .status = 0x1234)), "W34",
	       "an exit code past a byte: its low byte");
	is_str(reply_of(s, STOP_OF(4242, ENGINE_STOP_SIGNAL, 4243, .sig = SIGUSR1)),
	       "T1ethread:1093;", "a stop of a process not ours: no registers");
	is_str(reply_of(s, STOP_OF(4242, ENGINE_STOP_EXEC, 4242)), "T05thread:1092;",
	       "an exec of a process not ours: no path");
	is_str(reply_of(s, STOP(ENGINE_STOP_SIGNAL, TID(9), .sig = SIGUSR1)), "T1ethread:4c4b48;",
	       "a thread not ours: no registers");
	is_str(reply_of(s, STOP((enum engine_stop_kind)77, t2)), "T05thread:4c4b41;" AT_START,
	       "an unknown kind: a plain T05");
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
	is_str(gw_ask(s, "Z2,601000,8"), "OK", "Z2: a write watchpoint");
	trace();
	is_str(gw_ask(s, "vCont;c"), "", "vCont;c");
	is_str(trace(), "c1 c2 c3", "  every thread runs");
	is_str(gw_event(s, GW_WATCH, 1, 1), "T05thread:4c4b40;" AT_START "watch:601000;",
	       "T1 writes there: watch and the address");
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
