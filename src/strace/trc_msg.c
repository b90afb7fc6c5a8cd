/*
 * trc_msg.c: decoders of struct msghdr: sendmsg and recvmsg, with their
 * iovecs and control messages (SCM_RIGHTS fds, SCM_CREDENTIALS).
 *
 * x86-64 layouts only (the specs are not marked for i386, which prints
 * raw arguments). sendmsg is printed whole at entry; recvmsg at exit,
 * when the kernel has filled the buffers, the address and the flags: its
 * data is shown up to the returned length, spread over the iovecs as the
 * kernel filled them, and msg_namelen as "IN => OUT" when it changed.
 */
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "trc_int.h"

/* struct msghdr as the x86-64 kernel reads it. */
struct msghdr64 {
	uint64_t name;
	uint32_t namelen;
	uint32_t pad;
	uint64_t iov;
	uint64_t iovlen;
	uint64_t control;
	uint64_t controllen;
	uint32_t flags;
	uint32_t pad2;
};

struct cmsghdr64 {
	uint64_t len;
	int32_t level;
	int32_t type;
};

#define CMSG_HDR	 sizeof(struct cmsghdr64)
#define CMSG_ALIGN8(len) (((len) + 7) & ~(uint64_t)7)
#define CONTROL_MAX	 4096 /* control bytes read at the most */

static const struct xlat scm_types[] = {
	XV(SCM_RIGHTS),
	XV(SCM_CREDENTIALS),
	{3, "SCM_SECURITY"},
	XEND,
};

static void print_cmsg_data(struct trc_call *c, const struct cmsghdr64 *h, const uint8_t *data)
{
	size_t n = h->len - CMSG_HDR;

	if (h->level != SOL_SOCKET)
		return;
	if (h->type == SCM_RIGHTS) {
		tp_str(c, ", cmsg_data=[");
		for (size_t i = 0; i + sizeof(int) <= n; i += sizeof(int)) {
			int fd;

			memcpy(&fd, data + i, sizeof(fd));
			if (i)
				tp_sep(c);
			tp_fd(c, (uint64_t)(int64_t)fd);
		}
		buf_putc(c->b, ']');
	} else if (h->type == SCM_CREDENTIALS && n >= sizeof(struct ucred)) {
		struct ucred cred;

		memcpy(&cred, data, sizeof(cred));
		tp_fmt(c, ", cmsg_data={pid=%d, uid=%u, gid=%u}", (int)cred.pid, cred.uid,
		       cred.gid);
	}
}

/* One control message at buf[off]: its length aligned, or 0 to stop. */
static uint64_t print_cmsg(struct trc_call *c, const uint8_t *buf, uint64_t off, uint64_t have)
{
	struct cmsghdr64 h;
	bool whole; /* its length is sane and its data was read */

	memcpy(&h, buf + off, sizeof(h));
	whole = h.len >= CMSG_HDR && h.len <= have - off;
	tp_fmt(c, "{cmsg_len=%llu, cmsg_level=", (unsigned long long)h.len);
	tp_xval_dec(c, trc_sock_levels, (uint32_t)h.level, "SOL_???");
	tp_str(c, ", cmsg_type=");
	if (h.level == SOL_SOCKET)
		tp_xval(c, scm_types, (uint32_t)h.type, "SCM_???");
	else
		tp_hex(c, (uint32_t)h.type);
	if (whole)
		print_cmsg_data(c, &h, buf + off + CMSG_HDR);
	buf_putc(c->b, '}');
	return whole ? CMSG_ALIGN8(h.len) : 0;
}

/* msg_control=[{cmsg_len=..., ...}, ...]: what fits in len bytes. */
static void print_control(struct trc_call *c, uint64_t addr, uint64_t len)
{
	uint8_t buf[CONTROL_MAX];
	uint64_t have = len < sizeof(buf) ? len : sizeof(buf), off = 0, step = 1;
	unsigned n = 0;

	if (!addr || have < CMSG_HDR || tp_read(c, addr, buf, (size_t)have)) {
		tp_addr(c, addr);
		return;
	}
	buf_putc(c->b, '[');
	while (step && have - off >= CMSG_HDR && n < c->o->strsize) {
		if (n++)
			tp_sep(c);
		step = print_cmsg(c, buf, off, have);
		/* The aligned length may run past the end (cmsg_len 17 of 17):
		 * nothing follows then, as for strace, and off must not pass
		 * have or have - off wraps. */
		if (step >= have - off) {
			off = have;
			break;
		}
		off += step;
	}
	if (off < len)
		tp_fmt(c, "%s... /* %#llx */", n ? ", " : "", (unsigned long long)(addr + off));
	buf_putc(c->b, ']');
}

/* The msghdr; data: up to limit bytes of iovec data (recvmsg: what it returned). */
static void print_msghdr(struct trc_call *c, const struct msghdr64 *m, uint64_t limit,
			 uint32_t namelen_in)
{
	tp_str(c, "{msg_name=");
	tp_sockaddr(c, m->name, m->namelen < namelen_in ? m->namelen : namelen_in);
	tp_fmt(c, ", msg_namelen=%u", namelen_in);
	if (m->namelen != namelen_in)
		tp_fmt(c, " => %u", m->namelen);
	tp_str(c, ", msg_iov=");
	tp_iov(c, m->iov, m->iovlen, limit, true);
	tp_str(c, ", msg_iovlen=");
	tp_udec(c, m->iovlen);
	if (m->controllen) {
		tp_str(c, ", msg_control=");
		print_control(c, m->control, m->controllen);
	}
	tp_str(c, ", msg_controllen=");
	tp_udec(c, m->controllen);
	tp_str(c, ", msg_flags=");
	tp_flags(c, trc_msg_flags, m->flags, "0");
	buf_putc(c->b, '}');
}

int trc_dec_sendmsg(struct trc_call *c)
{
	struct msghdr64 m;

	tp_fd(c, c->a[0]);
	tp_sep(c);
	if (!tp_read_or_addr(c, c->a[1], &m, sizeof(m)))
		print_msghdr(c, &m, UINT64_MAX, m.namelen);
	tp_sep(c);
	tp_flags(c, trc_msg_flags, (uint32_t)c->a[2], "0");
	return RV_DECODED;
}

/* aux: msg_namelen as it was at entry, | 1 << 32 when it could be read. */
int trc_dec_recvmsg(struct trc_call *c)
{
	struct msghdr64 m;
	uint32_t in = (uint32_t)c->aux;

	if (!c->exiting) {
		tp_fd(c, c->a[0]);
		tp_sep(c);
		c->aux = tp_read(c, c->a[1], &m, sizeof(m)) ? 0 : (uint64_t)m.namelen | 1ull << 32;
		return 0;
	}
	if (!(c->aux >> 32) || tp_read(c, c->a[1], &m, sizeof(m)))
		tp_addr(c, c->a[1]);
	else if (c->failed)
		tp_fmt(c, "{msg_namelen=%u}", in);
	else
		print_msghdr(c, &m, (uint64_t)c->ret, in);
	tp_sep(c);
	tp_flags(c, trc_msg_flags, (uint32_t)c->a[2], "0");
	return RV_DEC;
}
