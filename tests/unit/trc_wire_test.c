/*
 * trc_wire_test: a trace's options as they travel to utraced
 * (src/strace/trc_wire.c): every field survives the trip, the text has no
 * RSP special character, and anything malformed or unknown is refused.
 */
#include <string.h>
#include <sys/syscall.h>

#include "tap.h"
#include "strace/trc_wire.h"

static bool same(const struct trc_wire *a, const struct trc_wire *b)
{
	return !memcmp(&a->o, &b->o, sizeof(a->o)) && a->follow == b->follow;
}

int main(void)
{
	struct trc_wire w, back;
	char text[TRC_WIRE_MAX], err[128], bad[TRC_WIRE_MAX];
	int n;

	memset(&w, 0, sizeof(w));
	trc_opts_init(&w.o);
	n = trc_wire_encode(&w, text, sizeof(text));
	ok(n > 0 && (size_t)n == strlen(text), "defaults encode (%d bytes)", n);
	ok(!strpbrk(text, "$#}*%"), "... with no RSP special character");
	is_int(trc_wire_decode(&back, text, (size_t)n), 0, "... and decode");
	ok(same(&w, &back), "... to the same options");

	w.o.strsize = 4096;
	w.o.acolumn = 60;
	w.o.tstamp = 3;
	w.o.show_time = w.o.decode_fds = w.o.only_fail = true;
	w.o.quiet = TRC_QUIET_EXIT | TRC_QUIET_ATTACH;
	is_int(trc_parse_set(w.o.noabbrev, true, "fstat", err, sizeof(err)), 0, "-e abbrev=fstat");
	is_int(trc_parse_set(w.o.noverbose, true, "!wait4", err, sizeof(err)), 0,
	       "-e verbose=!wait4");
	is_int(trc_parse_set(w.o.raw, false, "read", err, sizeof(err)), 0, "-e raw=read");
	w.o.count = TRC_COUNT_TOO;
	w.o.count_wall = true;
	w.o.xstrings = 2;
	w.o.relative = true;
	is_int(trc_add_path(&w.o, "/nonexistent/a", err, sizeof(err)), 0, "-P /nonexistent/a");
	is_int(trc_add_path(&w.o, "/nonexistent/b;c", err, sizeof(err)), 0, "-P with a ';'");
	w.o.pfx = TRC_PFX_PLAIN;
	w.follow = true;
	is_int(trc_parse_trace(&w.o, "!%network", err, sizeof(err)), 0, "-e trace=!%%network");
	is_int(trc_parse_signals(&w.o, "SIGUSR1,SIGCHLD", err, sizeof(err)), 0, "-e signal=...");
	n = trc_wire_encode(&w, text, sizeof(text));
	ok(n > 0, "every option set: encodes (%d bytes)", n);
	is_int(trc_wire_decode(&back, text, (size_t)n), 0, "... decodes");
	ok(same(&w, &back), "... to the same options");
	ok(!trc_set_has(&back.o.trace[TRC_PERS_64], SYS_connect) &&
		   trc_set_has(&back.o.trace[TRC_PERS_64], SYS_read),
	   "... the syscall set with it");
	ok(trc_set_has(&back.o.signals, 10) && !trc_set_has(&back.o.signals, 2),
	   "... and the signal set");
	ok(trc_opt_in(back.o.noabbrev, TRC_PERS_64, SYS_newfstatat) &&
		   !trc_opt_in(back.o.noabbrev, TRC_PERS_64, SYS_fstat) &&
		   trc_opt_in(back.o.noverbose, TRC_PERS_64, SYS_wait4) &&
		   /* i386's read, where the CPU has an i386 table */
		   (!trc_syscall_max(TRC_PERS_32) || trc_opt_in(back.o.raw, TRC_PERS_32, 3)) &&
		   !trc_opt_in(back.o.raw, TRC_PERS_64, SYS_write),
	   "... and abbrev=, verbose=, raw=");
	is_int((int)back.o.quiet, TRC_QUIET_EXIT | TRC_QUIET_ATTACH, "... and quiet=");

	is_int(trc_wire_encode(&w, text, 100), -1, "too small a buffer: -1");
	n = trc_wire_encode(&w, text, sizeof(text));
	is_int(trc_wire_decode(&back, text, (size_t)n - 1), -1, "a cut text is refused");
	memcpy(bad, text, (size_t)n + 1);
	bad[2] = '9';
	is_int(trc_wire_decode(&back, bad, (size_t)n), -1, "another version is refused");
	memcpy(bad, text, (size_t)n + 1);
	bad[n - 3] = 'X';
	is_int(trc_wire_decode(&back, bad, (size_t)n), -1, "a bad hex digit is refused");
	memcpy(bad, text, (size_t)n + 1);
	strcpy(bad + n, ";k=1");
	is_int(trc_wire_decode(&back, bad, strlen(bad)), -1, "an unknown key is refused");
	memcpy(bad, text, (size_t)n + 1);
	strcpy(bad + n, ";x=1");
	is_int(trc_wire_decode(&back, bad, strlen(bad)), -1, "a key twice is refused");
	is_int(trc_wire_decode(&back, "v=5;s=32", 8), -1, "missing keys are refused");
	return done_testing();
}
