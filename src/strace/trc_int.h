/*
 * trc_int.h: what the decoders share with the core, private to src/strace/.
 *
 * A decoder (one per syscall, grouped one file per family as in strace)
 * gets a struct trc_call: the arguments, the reader, the line being built.
 * It is called at entry and, unless it returned RV_DECODED, again at exit;
 * it prints only through the tp_* helpers so that the output format lives
 * in trc_print.c. Reads of tracee memory can fail: a decoder then prints
 * the raw address, never an error.
 */
#ifndef UTRACED_TRC_INT_H
#define UTRACED_TRC_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "../util/buf.h"
#include "trc.h"

/* Decoder return: the format of the return value, plus flags. */
#define RV_DEC	   0x00 /* signed decimal */
#define RV_HEX	   0x01
#define RV_OCT	   0x02
#define RV_UDEC	   0x03
#define RV_FD	   0x04 /* an fd: "3</path>" with -y */
#define RV_MASK	   0x0f
#define RV_STR	   0x10	 /* c->auxstr follows in parentheses */
#define RV_NONE	   0x20	 /* no return value: "= ?" */
#define RV_DECODED 0x100 /* all printed at entry: no call at exit */

/* Syscall classes, for -e trace=%class. */
#define TC_FILE	   0x001
#define TC_IPC	   0x002
#define TC_NET	   0x004
#define TC_PROC	   0x008
#define TC_SIG	   0x010
#define TC_DESC	   0x020
#define TC_MEM	   0x040
#define TC_STAT	   0x080 /* stat family, by path */
#define TC_LSTAT   0x100
#define TC_FSTAT   0x200
#define TC_STATALL 0x400 /* %%stat: every stat-like call */
#define TC_CREDS   0x800
#define TC_CLOCK   0x1000
#define TC_PURE	   0x2000 /* no arguments, cannot fail */

struct trc_call {
	struct trc *t;
	const struct trc_opts *o;
	const struct trc_reader *rd;
	struct buf *b; /* the line being built */
	enum trc_pers pers;
	const uint64_t *a; /* the arguments (i386: zero-extended 32-bit) */
	bool exiting;
	int64_t ret;	    /* at exit: the raw return (-errno on failure) */
	bool failed;	    /* at exit: ret is an error */
	uint64_t aux;	    /* kept from entry to exit for the decoder */
	bool path_hit;	    /* -P: a path or fd argument named one of its paths */
	long prev_nr;	    /* the thread's previous syscall (-1: none seen) */
	bool abbrev;	    /* structures abbreviated (strace without -v) */
	bool verbose;	    /* structures decoded (not -e verbose= leaving it out) */
	const char *auxstr; /* with RV_STR */
	char auxbuf[128];   /* room for a built auxstr */
};

typedef int (*trc_decoder)(struct trc_call *c);

struct trc_spec {
	const char *name;
	uint8_t nargs;
	uint16_t classes;
	trc_decoder dec; /* NULL: print nargs raw arguments */
	bool any_pers;	 /* decoder also right for i386 */
};

/* trc_sysent.c: the spec of a number (NULL: not in trc_syscalls.in), by name. */
const struct trc_spec *trc_spec_of(enum trc_pers p, long nr);
const struct trc_spec *trc_spec_find(const char *name);
extern const struct trc_spec trc_specs[];
extern const size_t trc_nspecs;

/* Named values, as strace's xlat tables. Arrays end with {0, NULL}. */
struct xlat {
	uint64_t val;
	const char *name;
};
#define XV(x)                                                                                      \
	{                                                                                          \
		(uint64_t)(x), #x                                                                  \
	}
#define XEND                                                                                       \
	{                                                                                          \
		0, NULL                                                                            \
	}

/* trc_print.c: the only place that knows how strace spells things. */
void tp_sep(struct trc_call *c); /* ", " */
void tp_str(struct trc_call *c, const char *s);
void tp_fmt(struct trc_call *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tp_addr(struct trc_call *c, uint64_t addr); /* NULL or 0x... */
void tp_dec(struct trc_call *c, int64_t v);
void tp_udec(struct trc_call *c, uint64_t v);
void tp_hex(struct trc_call *c, uint64_t v);   /* 0 or 0x... */
void tp_oct(struct trc_call *c, uint64_t v);   /* 0644 */
void tp_int(struct trc_call *c, uint64_t arg); /* the argument as a C int */
void tp_fd(struct trc_call *c, uint64_t arg);  /* an fd, with -y path */
/* -P: whether fd is open on one of its paths, for fds a line may not print (cut by -s). */
void tp_fd_match(struct trc_call *c, int fd);
void tp_dirfd(struct trc_call *c, uint64_t arg); /* AT_FDCWD or an fd */
/* A NUL-terminated path (PATH_MAX, not cut by -s). */
void tp_path(struct trc_call *c, uint64_t addr);
/* len bytes, cut at -s with "...". */
void tp_buf(struct trc_call *c, uint64_t addr, uint64_t len);
/* len bytes, all as \x hex (getrandom). */
void tp_buf_hex(struct trc_call *c, uint64_t addr, uint64_t len);
/* A structure's bytes past those known, if not all zero (see trc_print.c). */
bool tp_nonzero_tail(struct trc_call *c, const char *sep, uint64_t addr, uint64_t start,
		     uint64_t total);
/* n iovecs at addr: [{iov_base="...", iov_len=N}, ...], at most -s of them;
 * with data, up to limit bytes of data in all (else the bases' addresses). */
void tp_iov(struct trc_call *c, uint64_t addr, uint64_t n, uint64_t limit, bool data);
/* A NUL-terminated string, cut at -s with "...". */
void tp_cstr(struct trc_call *c, uint64_t addr);
/* Quote len bytes of s as strace does (no truncation). */
void tp_quote(struct trc_call *c, const unsigned char *s, size_t len, bool hex);
/* Flags: "A|B|0x40", dflt when val is 0 (NULL: "0"). */
void tp_flags(struct trc_call *c, const struct xlat *x, uint64_t val, const char *dflt);
/* One value: its name, else hex with a comment "0x7 /- XXX_??? -/". */
void tp_xval(struct trc_call *c, const struct xlat *x, uint64_t val, const char *dflt);
/* As tp_xval, unknown values in decimal. */
void tp_xval_dec(struct trc_call *c, const struct xlat *x, uint64_t val, const char *dflt);
const char *xlat_name(const struct xlat *x, uint64_t val);
/* A file's mode with its type: S_IFREG|S_ISUID|0644 (mknod, stat). */
void tp_mode(struct trc_call *c, uint64_t mode);
/* The mode argument of open/creat/mkdir/chmod/umask: a 16-bit number in octal. */
void tp_umode(struct trc_call *c, uint64_t arg);
/* Read exactly len bytes: 0, or -1 (nothing printed). */
int tp_read(struct trc_call *c, uint64_t addr, void *buf, size_t len);
/* Read or print the address: 0 when buf holds the data, -1 when addr was printed. */
int tp_read_or_addr(struct trc_call *c, uint64_t addr, void *buf, size_t len);
/* The pointer size of the tracee and reading one pointer from its memory. */
size_t tp_wordsize(const struct trc_call *c);
int tp_read_word(struct trc_call *c, uint64_t addr, uint64_t *out);
/* Whether at exit the call failed (then pointers to results print as addresses). */
static inline bool tp_failed(const struct trc_call *c)
{
	return c->exiting && c->failed;
}
/* An "out" pointer at exit: address when the call failed, else the caller decodes. */
bool tp_out_addr(struct trc_call *c, uint64_t addr);

/*
 * trc_sockios.c: ioctl's socket requests; at entry the request and its
 * argument (the return format), at exit the argument; -1: not one of them.
 */
int trc_sockios_entry(struct trc_call *c, uint32_t req, uint64_t arg);
int trc_sockios_exit(struct trc_call *c, uint32_t req, uint64_t arg);

/* trc_dump.c: -e read=/write= dumps of nr's data, after the line (into b) */
void trc_dump_io(struct trc_call *c, long nr, struct buf *b);

/* trc_sigprint.c */
void tp_signame(struct trc_call *c, uint64_t sig);
/* A kernel sigset of size bytes at addr: [INT TERM], ~[RTMIN RT_1], []. */
void tp_sigset_at(struct trc_call *c, uint64_t addr, uint64_t size);
void tp_sigset_bits(struct trc_call *c, const uint64_t *words, unsigned nwords);
void tp_siginfo(struct trc_call *c, const siginfo_t *si);
void tp_siginfo_at(struct trc_call *c, uint64_t addr);

/* trc_stat.c, for wait4's and friends' timevals and rusage, and others' timespecs */
void tp_timespec_at(struct trc_call *c, uint64_t addr);
void tp_timeval_at(struct trc_call *c, uint64_t addr);

/* trc_sockaddr.c, for connect/bind/accept and sendmsg's msg_name */
void tp_sockaddr(struct trc_call *c, uint64_t addr, uint64_t len);
/* A family's printer, given the address (zero-padded) and its length. */
struct trc_sa_family {
	unsigned family;
	void (*print)(struct trc_call *c, const unsigned char *buf, size_t len);
	size_t min_len; /* shorter: its raw sa_data */
};
extern const struct trc_sa_family trc_sa_families[];
void trc_sa_ax25(struct trc_call *c, const unsigned char *buf, size_t len); /* trc_sa_ax25.c */
extern const struct xlat trc_families[];				    /* AF_*, trc_net.c */
extern const struct xlat trc_msg_flags[];				    /* MSG_* */
extern const struct xlat trc_sock_levels[];				    /* SOL_* */

#endif
