/*
 * trc_stream_test: an strace core's output carried across a byte stream
 * (src/strace/trc_stream.c) into a trc_out shared with another core, as
 * ustrace does with the daemon's trace: lines of both interleave as
 * strace's ("<unfinished ...>", "<... resumed>", "[pid N]" while more than
 * one task is traced), one -c table for both, any split of the bytes, and
 * a malformed stream refused for good.
 */
#include <string.h>
#include <sys/syscall.h>

#include "tap.h"
#include "strace/trc.h"
#include "strace/trc_stream.h"
#include "util/buf.h"

static struct buf out;

static void write_out(void *ctx, const char *s, size_t n)
{
	(void)ctx;
	buf_append(&out, s, n);
}

static ssize_t no_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	(void)addr;
	(void)buf;
	(void)len;
	return -1;
}

static const struct trc_reader rd = {NULL, no_read, NULL, NULL};

static struct trc_who who(pid_t tid)
{
	struct trc_who w = {tid, TRC_PERS_64, &rd, {0, 0}, 0, false};

	return w;
}

/* The stream's bytes so far into rx, one byte at a time: any split must do. */
static int pass(struct buf *wire, struct trc_stream_rx *rx, const struct trc_sink *to)
{
	int rc = 0;

	for (size_t i = 0; i < wire->len && rc == 0; i++)
		rc = trc_stream_feed(rx, wire->data + i, 1, to);
	buf_reset(wire);
	return rc;
}

static void test_interleave(void)
{
	struct trc_opts o;
	struct trc_out *tout;
	struct trc_sink shared, enc;
	struct trc *local, *remote;
	struct trc_stream_rx *rx = trc_stream_rx_new();
	struct buf wire;
	struct trc_who a = who(100), b = who(200);
	uint64_t args[6] = {3};

	trc_opts_init(&o);
	o.count = TRC_COUNT_TOO;
	buf_init(&wire);
	buf_reset(&out);
	tout = trc_out_new(&o, write_out, NULL);
	shared = trc_out_sink(tout);
	enc = trc_stream_sink(&wire, false);
	local = trc_new_sink(&o, &shared);
	remote = trc_new_sink(&o, &enc);

	trc_thread_new(local, 100);
	trc_thread_new(remote, 200);
	is_int(pass(&wire, rx, &shared), 0, "a task announced");
	trc_syscall_entry(local, &a, SYS_close, args);
	trc_syscall_entry(remote, &b, SYS_getpid, args);
	trc_syscall_exit(remote, &b, 200);
	is_int(pass(&wire, rx, &shared), 0, "a whole line of the other core");
	trc_syscall_exit(local, &a, 0);
	trc_syscall_entry(remote, &b, SYS_close, args);
	is_int(pass(&wire, rx, &shared), 0, "an entry of the other core");
	trc_syscall_entry(local, &a, SYS_getpid, args);
	trc_syscall_exit(local, &a, 100);
	trc_syscall_exit(remote, &b, -9);
	trc_exited(remote, &b, 0);
	is_int(pass(&wire, rx, &shared), 0, "its resumed line and its exit");
	trc_syscall_entry(local, &a, SYS_getpid, args);
	trc_syscall_exit(local, &a, 100);
	is_str(out.data,
	       "[pid   100] close(3 <unfinished ...>\n"
	       "[pid   200] getpid()                    = 200\n"
	       "[pid   100] <... close resumed>)        = 0\n"
	       "[pid   200] close(3 <unfinished ...>\n"
	       "[pid   100] getpid()                    = 100\n"
	       "[pid   200] <... close resumed>)        = -1 EBADF (Bad file descriptor)\n"
	       "[pid   200] +++ exited with 0 +++\n"
	       "getpid()                                = 100\n",
	       "lines of two cores interleave as strace's; no prefix once one task is left");

	buf_reset(&out);
	trc_out_summary(tout);
	if (!ok(strstr(out.data, "     2         1 close\n") &&
			strstr(out.data, "     3           getpid\n") &&
			strstr(out.data, "     5         1 total\n"),
		"one -c table for both"))
		diag("%s", out.data);

	/* a stream that ends with its tasks announced: they are gone with it */
	trc_thread_new(remote, 201);
	trc_thread_new(remote, 202);
	is_int(pass(&wire, rx, &shared), 0, "two more tasks");
	buf_reset(&out);
	trc_syscall_entry(local, &a, SYS_getpid, args);
	trc_syscall_exit(local, &a, 100);
	ok(!strncmp(out.data, "[pid   100] ", 12), "... prefixes while they are there");
	trc_stream_end(rx, &shared);
	buf_reset(&out);
	trc_syscall_entry(local, &a, SYS_getpid, args);
	trc_syscall_exit(local, &a, 100);
	ok(!strncmp(out.data, "getpid()", 8), "... none once their stream ended");

	trc_free(local);
	trc_free(remote);
	trc_out_free(tout);
	trc_stream_rx_free(rx);
	buf_free(&wire);
}

/*
 * A thread other than the leader exec'd (PTRACE_EVENT_EXEC's old tid): its
 * open line ends " <pid changed to N ...>", "+++ superseded" follows and
 * its execve returns as the leader, through the stream (record P) as well.
 */
static void test_retid(void)
{
	struct trc_opts o;
	struct trc_out *tout;
	struct trc_sink shared, enc;
	struct trc *remote;
	struct trc_stream_rx *rx = trc_stream_rx_new();
	struct buf wire;
	struct trc_who leader = who(300), thread = who(301);
	uint64_t exit_args[6] = {42}, exec_args[6] = {0x1000, 0x2000, 0x3000};

	trc_opts_init(&o);
	buf_init(&wire);
	buf_reset(&out);
	tout = trc_out_new(&o, write_out, NULL);
	shared = trc_out_sink(tout);
	enc = trc_stream_sink(&wire, false);
	remote = trc_new_sink(&o, &enc);
	trc_thread_new(remote, 300);
	trc_thread_new(remote, 301);
	trc_syscall_entry(remote, &leader, SYS_exit, exit_args);
	trc_exiting(remote, &leader);
	trc_syscall_entry(remote, &thread, SYS_execve, exec_args);
	trc_retid(remote, &leader, 301);
	trc_syscall_exit(remote, &leader, 0);
	trc_exited(remote, &leader, 0);
	is_int(pass(&wire, rx, &shared), 0, "retid: the stream takes it");
	is_str(out.data,
	       "[pid   300] exit(42)                    = ?\n"
	       "[pid   301] execve(0x1000, 0x2000, 0x3000 /* 0 vars */ <pid changed to 300 ...>\n"
	       "+++ superseded by execve in pid 301 +++\n"
	       "<... execve resumed>)                   = 0\n"
	       "+++ exited with 0 +++\n",
	       "retid: pid changed, superseded, the execve returns as the leader");
	is_int(trc_stream_feed(rx, "P301,300;", 9, &shared), -1,
	       "retid: a P record for a task the stream does not have is refused");
	trc_free(remote);
	trc_out_free(tout);
	trc_stream_rx_free(rx);
	buf_free(&wire);
}

static int feed_str(const char *s)
{
	struct trc_opts o;
	struct trc_out *tout;
	struct trc_sink to;
	struct trc_stream_rx *rx = trc_stream_rx_new();
	int rc;

	trc_opts_init(&o);
	o.count = TRC_COUNT_TOO;
	tout = trc_out_new(&o, write_out, NULL);
	to = trc_out_sink(tout);
	rc = trc_stream_feed(rx, s, strlen(s), &to);
	if (rc == 0 && trc_stream_feed(rx, "", 0, &to) != 0)
		rc = -2; /* broken, yet it said 0 */
	trc_stream_end(rx, &to);
	trc_out_summary(tout);
	trc_out_free(tout);
	trc_stream_rx_free(rx);
	return rc;
}

static void test_hostile(void)
{
	is_int(feed_str("N5;S5,1,2;T3;abcAE"), 0, "well-formed records");
	is_int(feed_str("S5,1,2;T3;ab"), 0, "a record cut short waits for the rest");
	is_int(feed_str("S5,1"), 0, "... a cut number too");
	is_int(feed_str("R5,0,0,1,-9223372036854775808;C0,9223372036854775807,1,-5;E"), 0,
	       "any syscall number, any time");
	is_int(feed_str("N5;s5;T1;xr5,0,1;AT1;yE"), 0, "lines without their time");
	is_int(feed_str("r5,2,1;"), -1, "... an unknown personality there too");
	is_int(feed_str("s0;"), -1, "... tid 0");
	is_int(feed_str("X"), -1, "an unknown letter is refused");
	is_int(feed_str("\x80"), -1, "... a high byte too");
	is_int(feed_str("S0,1,2;"), -1, "tid 0 is refused");
	is_int(feed_str("S-5,1,2;"), -1, "... a negative tid");
	is_int(feed_str("S5,1,1000000000;"), -1, "... nanoseconds past a second");
	is_int(feed_str("R5,1,2,7,1;"), -1, "... an unknown personality");
	is_int(feed_str("C2,1,0,0;"), -1, "... in a count too");
	is_int(feed_str("C0,1,3,0;"), -1, "... an error flag other than 0 or 1");
	is_int(feed_str("T2000000;"), -1, "... text too long");
	is_int(feed_str("S5,,2;"), -1, "... an empty number");
	is_int(feed_str("N99999999999999999999;"), -1, "... a number too long");
	is_int(feed_str("S5;"), -1, "... too few numbers");
	is_int(feed_str("N5,6;"), -1, "... too many");
	is_int(feed_str("S5,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,"
			"27,28,29,30"),
	       -1, "... a head that never ends");
	is_int(feed_str("G5;G5;N6;N6;E"), 0, "a task gone before it came, or twice: ignored");
	is_int(feed_str("EEEAAAA"), 0, "ends and pads with no line open");
}

int main(void)
{
	buf_init(&out);
	test_interleave();
	test_retid();
	test_hostile();
	buf_free(&out);
	return done_testing();
}
