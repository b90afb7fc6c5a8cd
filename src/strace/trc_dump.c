/*
 * trc_dump.c: -e read=FDS and -e write=FDS, the hex and ASCII dump of the
 * data a syscall read from or wrote to one of those fds, in the lines
 * after its own, as strace prints it:
 *
 *	 | 00000  68 65 6c 6c 6f 0a                                 hello.           |
 *
 * Which syscalls carry data, and where, is the table below: a buffer and
 * its length, an iovec array, or a msghdr's iovecs. Written data is
 * dumped whether the call failed or not; read data only as much as the
 * call returned. Tracee memory is hostile: a short read ends the dump.
 */
#include <stdio.h>
#include <string.h>

#include "trc_int.h"

enum dump_kind {
	DK_BUF,	   /* (fd, buf, len): len bytes written, or ret bytes read */
	DK_IOV,	   /* (fd, iov, iovcnt) */
	DK_MSGHDR, /* (fd, msg, flags) */
};

static const struct {
	const char *name;
	bool write;
	enum dump_kind kind;
} dumped[] = {
	{"write", true, DK_BUF},    {"pwrite64", true, DK_BUF},	  {"sendto", true, DK_BUF},
	{"writev", true, DK_IOV},   {"pwritev", true, DK_IOV},	  {"pwritev2", true, DK_IOV},
	{"vmsplice", true, DK_IOV}, {"sendmsg", true, DK_MSGHDR}, {"read", false, DK_BUF},
	{"pread64", false, DK_BUF}, {"recvfrom", false, DK_BUF},  {"readv", false, DK_IOV},
	{"preadv", false, DK_IOV},  {"preadv2", false, DK_IOV},	  {"recvmsg", false, DK_MSGHDR},
};

#define DUMP_ROW   16
#define DUMP_CHUNK 4096

/* One row: offset, 16 bytes in hex in two groups of 8, the same as text. */
static void dump_row(struct buf *b, int width, uint64_t off, const unsigned char *p, size_t n)
{
	char hex[DUMP_ROW * 3 + 3], text[DUMP_ROW + 1];
	size_t i, h = 0;

	for (i = 0; i < DUMP_ROW; i++) {
		if (i < n)
			h += (size_t)snprintf(hex + h, sizeof(hex) - h, "%02x ", p[i]);
		else
			h += (size_t)snprintf(hex + h, sizeof(hex) - h, "   ");
		if (i % 8 == 7)
			hex[h++] = ' ';
		text[i] = i >= n ? ' ' : p[i] >= ' ' && p[i] < 0x7f ? (char)p[i] : '.';
	}
	hex[h] = '\0';
	text[DUMP_ROW] = '\0';
	buf_printf(b, "\n | %0*llx  %s%s |", width, (unsigned long long)off, hex, text);
}

/* len bytes at addr, as strace's dumpstr. */
static void dump_bytes(struct trc_call *c, struct buf *b, uint64_t addr, uint64_t len)
{
	unsigned char chunk[DUMP_CHUNK];
	uint64_t off = 0;
	int width = 5;

	if (len > 1 << 20) /* enough hex digits for the last offset */
		for (width = 1; (len - 1) >> (4 * width); width++)
			;
	while (off < len) {
		size_t want = len - off < DUMP_CHUNK ? (size_t)(len - off) : DUMP_CHUNK;
		ssize_t got = c->rd->read(c->rd->ctx, addr + off, chunk, want);

		if (got < (ssize_t)want) {
			if (off)
				buf_printf(b, "\n | <Cannot fetch %zu byte%s @%#llx>", want,
					   want == 1 ? "" : "s", (unsigned long long)(addr + off));
			return;
		}
		for (size_t i = 0; i < want; i += DUMP_ROW)
			dump_row(b, width, off + i, chunk + i,
				 want - i < DUMP_ROW ? want - i : DUMP_ROW);
		off += want;
	}
}

/* n iovecs at addr, up to limit bytes of data in all, buffer by buffer. */
static void dump_iov(struct trc_call *c, struct buf *b, uint64_t addr, uint64_t n, uint64_t limit)
{
	size_t ws = tp_wordsize(c);

	if (n > 1024)
		return;
	for (uint64_t i = 0; i < n; i++) { /* as strace: the whole array, or nothing */
		uint64_t w;

		if (tp_read_word(c, addr + i * 2 * ws, &w) ||
		    tp_read_word(c, addr + i * 2 * ws + ws, &w))
			return;
	}
	for (uint64_t i = 0; i < n && limit; i++) {
		uint64_t base, len;

		if (tp_read_word(c, addr + i * 2 * ws, &base) ||
		    tp_read_word(c, addr + i * 2 * ws + ws, &len))
			return;
		if (len > limit)
			len = limit;
		if (!len)
			return;
		limit -= len;
		buf_printf(b, "\n * %llu bytes in buffer %llu", (unsigned long long)len,
			   (unsigned long long)i);
		dump_bytes(c, b, base, len);
	}
}

static void dump_msghdr(struct trc_call *c, struct buf *b, uint64_t addr, uint64_t limit)
{
	size_t ws = tp_wordsize(c);
	uint64_t iov, iovlen;

	/* msg_name, msg_namelen (padded to a word), msg_iov, msg_iovlen */
	if (tp_read_word(c, addr + 2 * ws, &iov) || tp_read_word(c, addr + 3 * ws, &iovlen))
		return;
	dump_iov(c, b, iov, iovlen, limit);
}

void trc_dump_io(struct trc_call *c, long nr, struct buf *b)
{
	const char *name = trc_syscall_name(c->pers, nr);
	int fd = (int)c->a[0];
	uint64_t limit;
	size_t i;

	if (fd < 0 ||
	    (!trc_fdset_has(&c->o->write_fds, fd) && !trc_fdset_has(&c->o->read_fds, fd)) || !name)
		return;
	for (i = 0; i < sizeof(dumped) / sizeof(dumped[0]); i++)
		if (!strcmp(dumped[i].name, name))
			break;
	if (i == sizeof(dumped) / sizeof(dumped[0]))
		return;
	if (dumped[i].write ? !trc_fdset_has(&c->o->write_fds, fd)
			    : c->failed || !trc_fdset_has(&c->o->read_fds, fd))
		return;
	limit = dumped[i].write ? UINT64_MAX : (uint64_t)c->ret;

	switch (dumped[i].kind) {
	case DK_BUF:
		dump_bytes(c, b, c->a[1], dumped[i].write ? c->a[2] : limit);
		break;
	case DK_IOV:
		dump_iov(c, b, c->a[1], c->a[2], limit);
		break;
	case DK_MSGHDR:
		dump_msghdr(c, b, c->a[1], limit);
		break;
	}
}
