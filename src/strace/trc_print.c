/*
 * trc_print.c: how strace spells values: strings, addresses, flags, fds.
 *
 * Decoders print only through these helpers, so that quoting, truncation
 * at -s and the spelling of unknown values are decided here once. The
 * rules follow strace 6.1's output (checked by tests/e2e/ustrace_*.t
 * against the real strace): printable ASCII as is, the C escapes for
 * \t\n\v\f\r, other bytes in the shortest octal that cannot be misread.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "trc_int.h"

/* Room for n bytes; like buf.c, a tracer that cannot allocate gives up. */
static unsigned char *scratch(size_t n)
{
	unsigned char *p = malloc(n);

	if (!p)
		abort();
	return p;
}

void tp_sep(struct trc_call *c)
{
	buf_append(c->b, ", ", 2);
}

void tp_str(struct trc_call *c, const char *s)
{
	buf_puts(c->b, s);
}

void tp_fmt(struct trc_call *c, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_append(c->b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

size_t tp_wordsize(const struct trc_call *c)
{
	return c->pers == TRC_PERS_32 ? 4 : 8;
}

void tp_addr(struct trc_call *c, uint64_t addr)
{
	if (!addr)
		tp_str(c, "NULL");
	else
		tp_fmt(c, "%#llx", (unsigned long long)addr);
}

void tp_dec(struct trc_call *c, int64_t v)
{
	tp_fmt(c, "%lld", (long long)v);
}

void tp_udec(struct trc_call *c, uint64_t v)
{
	tp_fmt(c, "%llu", (unsigned long long)v);
}

void tp_hex(struct trc_call *c, uint64_t v)
{
	tp_fmt(c, "%#llx", (unsigned long long)v);
}

void tp_oct(struct trc_call *c, uint64_t v)
{
	tp_fmt(c, "%#03llo", (unsigned long long)v);
}

void tp_umode(struct trc_call *c, uint64_t arg)
{
	tp_oct(c, (uint16_t)arg);
}

void tp_int(struct trc_call *c, uint64_t arg)
{
	tp_fmt(c, "%d", (int)arg);
}

/*
 * Whether -x/-xx print s all in hex: -xx always; -x when a byte is
 * neither printable ASCII nor one of the white spaces \t\n\v\f\r.
 */
static bool strings_in_hex(const struct trc_opts *o, const unsigned char *s, size_t len)
{
	if (o->xstrings != 1)
		return o->xstrings > 1;
	for (size_t i = 0; i < len; i++)
		if (s[i] > 0x7e || (s[i] < ' ' && (s[i] < '\t' || s[i] > '\r')))
			return true;
	return false;
}

static void tp_fd_path(struct trc_call *c, int fd)
{
	char path[PATH_MAX];
	size_t i;
	bool hex;

	if ((!c->o->decode_fds && !c->o->paths[0]) || !c->rd->fd_path ||
	    c->rd->fd_path(c->rd->ctx, fd, path, sizeof(path)) < 0)
		return;
	if (c->o->paths[0] && fd != -100 /* AT_FDCWD */ && trc_path_wanted(c->o, path))
		c->path_hit = true;
	if (!c->o->decode_fds)
		return;
	hex = strings_in_hex(c->o, (const unsigned char *)path, strlen(path));
	buf_putc(c->b, '<');
	for (i = 0; path[i]; i++) {
		unsigned char ch = path[i];

		const char *esc = ch == '\n'   ? "\\n"
				  : ch == '\t' ? "\\t"
				  : ch == '\v' ? "\\v"
				  : ch == '\f' ? "\\f"
				  : ch == '\r' ? "\\r"
				  : ch == '\\' ? "\\\\"
				  : ch == '"'  ? "\\\""
					       : NULL;

		if (hex)
			tp_fmt(c, "\\x%02x", ch);
		else if (esc) /* as in strings */
			tp_str(c, esc);
		else if (ch == '<' || ch == '>' || ch < ' ' || ch > 0x7e)
			tp_fmt(c, "\\%o", ch);
		else
			buf_putc(c->b, ch);
	}
	buf_putc(c->b, '>');
}

void tp_fd_match(struct trc_call *c, int fd)
{
	char path[PATH_MAX];

	if (c->o->paths[0] && !c->path_hit && fd >= 0 && c->rd->fd_path &&
	    c->rd->fd_path(c->rd->ctx, fd, path, sizeof(path)) == 0 && trc_path_wanted(c->o, path))
		c->path_hit = true;
}

void tp_fd(struct trc_call *c, uint64_t arg)
{
	int fd = (int)arg;

	tp_fmt(c, "%d", fd);
	if (fd >= 0)
		tp_fd_path(c, fd);
}

void tp_dirfd(struct trc_call *c, uint64_t arg)
{
	if ((int)arg == -100) { /* AT_FDCWD: with -y, the cwd */
		tp_str(c, "AT_FDCWD");
		tp_fd_path(c, -100);
	} else {
		tp_fd(c, arg);
	}
}

int tp_read(struct trc_call *c, uint64_t addr, void *buf, size_t len)
{
	if (!addr && len)
		return -1;
	return c->rd->read(c->rd->ctx, addr, buf, len) == (ssize_t)len ? 0 : -1;
}

int tp_read_or_addr(struct trc_call *c, uint64_t addr, void *buf, size_t len)
{
	if (tp_read(c, addr, buf, len) == 0)
		return 0;
	tp_addr(c, addr);
	return -1;
}

int tp_read_word(struct trc_call *c, uint64_t addr, uint64_t *out)
{
	uint32_t w32;

	if (tp_wordsize(c) == 4) {
		if (tp_read(c, addr, &w32, 4))
			return -1;
		*out = w32;
		return 0;
	}
	return tp_read(c, addr, out, 8);
}

bool tp_out_addr(struct trc_call *c, uint64_t addr)
{
	if (c->exiting && !c->failed && addr)
		return false;
	tp_addr(c, addr);
	return true;
}

/* Bytes the kernel copies one page at a time: read what is readable. */
static size_t read_upto(struct trc_call *c, uint64_t addr, unsigned char *buf, size_t len)
{
	ssize_t n = c->rd->read(c->rd->ctx, addr, buf, len);

	return n > 0 ? (size_t)n : 0;
}

void tp_quote(struct trc_call *c, const unsigned char *s, size_t len, bool hex)
{
	size_t i;

	hex = hex || strings_in_hex(c->o, s, len);
	buf_putc(c->b, '"');
	for (i = 0; i < len; i++) {
		unsigned ch = s[i];
		bool digit_next = i + 1 < len && s[i + 1] >= '0' && s[i + 1] <= '7';

		if (hex) {
			tp_fmt(c, "\\x%02x", ch);
			continue;
		}
		switch (ch) {
		case '"':
		case '\\':
			buf_putc(c->b, '\\');
			buf_putc(c->b, ch);
			break;
		case '\f':
			tp_str(c, "\\f");
			break;
		case '\n':
			tp_str(c, "\\n");
			break;
		case '\r':
			tp_str(c, "\\r");
			break;
		case '\t':
			tp_str(c, "\\t");
			break;
		case '\v':
			tp_str(c, "\\v");
			break;
		default:
			if (ch >= ' ' && ch < 0x7f)
				buf_putc(c->b, ch);
			else if (digit_next)
				tp_fmt(c, "\\%03o", ch);
			else
				tp_fmt(c, "\\%o", ch);
		}
	}
	buf_putc(c->b, '"');
}

static void tp_buf_style(struct trc_call *c, uint64_t addr, uint64_t len, bool hex)
{
	unsigned char tmp[4096];
	unsigned char *s = tmp;
	size_t n = len < c->o->strsize ? len : c->o->strsize;

	if (!addr) {
		tp_str(c, "NULL");
		return;
	}
	if (n > sizeof(tmp))
		s = scratch(n);
	if (tp_read(c, addr, s, n))
		tp_addr(c, addr);
	else {
		tp_quote(c, s, n, hex);
		if (len > n)
			tp_str(c, "...");
	}
	if (s != tmp)
		free(s);
}

void tp_buf(struct trc_call *c, uint64_t addr, uint64_t len)
{
	tp_buf_style(c, addr, len, false);
}

void tp_buf_hex(struct trc_call *c, uint64_t addr, uint64_t len)
{
	tp_buf_style(c, addr, len, true);
}

/*
 * A NUL-terminated string of at most max bytes: prints it, with "..." when
 * no NUL came within max. path: it is a path argument, for -P. Reads in
 * page-bounded pieces, since the string may end just before an unmapped
 * page.
 */
static void tp_strz(struct trc_call *c, uint64_t addr, size_t max, bool path)
{
	unsigned char tmp[4096];
	unsigned char *s = tmp;
	size_t have = 0, want = max + 1, len;

	if (!addr) {
		tp_str(c, "NULL");
		return;
	}
	if (want > sizeof(tmp))
		s = scratch(want);
	while (have < want) {
		size_t chunk = 4096 - ((addr + have) & 4095);
		size_t got;

		if (chunk > want - have)
			chunk = want - have;
		got = read_upto(c, addr + have, s + have, chunk);
		if (memchr(s + have, 0, got) || got < chunk) {
			have += got;
			break;
		}
		have += got;
	}
	len = strnlen((char *)s, have);
	/* -P: a path argument naming one of its paths */
	if (path && c->o->paths[0] && len < have && trc_path_wanted(c->o, (char *)s))
		c->path_hit = true;
	if (len == have && have < want) /* unreadable before the NUL */
		tp_addr(c, addr);
	else {
		tp_quote(c, s, len < max ? len : max, false);
		if (len >= max && !(len == max && have > max && s[max] == 0))
			tp_str(c, "...");
	}
	if (s != tmp)
		free(s);
}

void tp_path(struct trc_call *c, uint64_t addr)
{
	tp_strz(c, addr, PATH_MAX - 1, true);
}

void tp_cstr(struct trc_call *c, uint64_t addr)
{
	tp_strz(c, addr, c->o->strsize, false);
}

void tp_iov(struct trc_call *c, uint64_t addr, uint64_t n, uint64_t limit, bool data)
{
	size_t ws = tp_wordsize(c);
	uint64_t i, base, len;

	if (!addr || n > 1024 || (n && tp_read_word(c, addr, &base))) {
		tp_addr(c, addr); /* as strace: no brackets around an unreadable array */
		return;
	}
	buf_putc(c->b, '[');
	for (i = 0; i < n; i++) {
		if (tp_read_word(c, addr + i * 2 * ws, &base) ||
		    tp_read_word(c, addr + i * 2 * ws + ws, &len)) {
			tp_fmt(c, "%s... /* ", i ? ", " : "");
			tp_addr(c, addr + i * 2 * ws);
			tp_str(c, " */");
			break;
		}
		if (i)
			tp_sep(c);
		if (i >= c->o->strsize) {
			tp_str(c, "...");
			break;
		}
		tp_str(c, "{iov_base=");
		if (data) {
			tp_buf(c, base, len < limit ? len : limit);
			limit -= len < limit ? len : limit;
		} else {
			tp_addr(c, base);
		}
		tp_str(c, ", iov_len=");
		tp_udec(c, len);
		buf_putc(c->b, '}');
	}
	buf_putc(c->b, ']');
}

const char *xlat_name(const struct xlat *x, uint64_t val)
{
	for (; x && x->name; x++)
		if (x->val == val)
			return x->name;
	return NULL;
}

void tp_flags(struct trc_call *c, const struct xlat *x, uint64_t val, const char *dflt)
{
	const struct xlat *e;
	unsigned n = 0;

	for (e = x; e->name && (val || !n); e++) {
		if (val == e->val || (e->val && (val & e->val) == e->val)) {
			if (n++)
				buf_putc(c->b, '|');
			tp_str(c, e->name);
			val &= ~e->val;
		}
		if (!val)
			break;
	}
	if (n) {
		if (val)
			tp_fmt(c, "|%#llx", (unsigned long long)val);
	} else if (val) {
		tp_hex(c, val);
		if (dflt)
			tp_fmt(c, " /* %s */", dflt);
	} else {
		tp_str(c, "0");
	}
}

void tp_xval(struct trc_call *c, const struct xlat *x, uint64_t val, const char *dflt)
{
	const char *name = xlat_name(x, val);

	if (name) {
		tp_str(c, name);
		return;
	}
	tp_hex(c, val);
	if (dflt)
		tp_fmt(c, " /* %s */", dflt);
}

void tp_xval_dec(struct trc_call *c, const struct xlat *x, uint64_t val, const char *dflt)
{
	const char *name = xlat_name(x, val);

	if (name) {
		tp_str(c, name);
		return;
	}
	tp_dec(c, (int64_t)val);
	if (dflt)
		tp_fmt(c, " /* %s */", dflt);
}

static const struct xlat mode_fmt[] = {
	XV(S_IFREG), XV(S_IFSOCK), XV(S_IFIFO), XV(S_IFLNK),
	XV(S_IFDIR), XV(S_IFBLK),  XV(S_IFCHR), XEND,
};

void tp_mode(struct trc_call *c, uint64_t mode)
{
	const char *fmt;

	mode = (uint32_t)mode;
	fmt = xlat_name(mode_fmt, mode & S_IFMT);
	if ((mode & S_IFMT) && !fmt) { /* no such file type: all in octal */
		tp_oct(c, mode);
		return;
	}
	if (fmt) {
		tp_str(c, fmt);
		buf_putc(c->b, '|');
		mode &= ~(uint64_t)S_IFMT;
	}
	if (mode & S_ISUID)
		tp_str(c, "S_ISUID|");
	if (mode & S_ISGID)
		tp_str(c, "S_ISGID|");
	if (mode & S_ISVTX)
		tp_str(c, "S_ISVTX|");
	tp_oct(c, mode & ~(uint64_t)(S_ISUID | S_ISGID | S_ISVTX));
}

/*
 * The bytes [start, total) of the structure at addr that the decoder does
 * not know, as strace shows them: nothing if all are zero, else
 * ", /- bytes START..END -/ "\x..."" (at most -s of them), or ", ???" when
 * unreadable. True when something was printed. sep is what comes first.
 */
bool tp_nonzero_tail(struct trc_call *c, const char *sep, uint64_t addr, uint64_t start,
		     uint64_t total)
{
	unsigned char tmp[4096];
	size_t len, i, n;

	if (total > sizeof(tmp))
		total = sizeof(tmp); /* (strace looks up to a page) */
	if (start >= total)
		return false;
	len = (size_t)(total - start);
	if (tp_read(c, addr + start, tmp, len)) {
		tp_str(c, sep);
		tp_str(c, "???");
		return true;
	}
	for (i = 0; i < len && !tmp[i]; i++)
		;
	if (i == len)
		return false;
	n = len < c->o->strsize ? len : c->o->strsize;
	tp_str(c, sep);
	tp_fmt(c, "/* bytes %llu..%llu */ ", (unsigned long long)start,
	       (unsigned long long)total - 1);
	tp_quote(c, tmp, n, true);
	if (n < len)
		tp_str(c, "...");
	return true;
}
