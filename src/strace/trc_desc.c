/*
 * trc_desc.c: decoders of the syscalls on file descriptors.
 *
 * read/write and their p- and v- forms, close, lseek, dup*, fcntl,
 * getdents, pipe, fadvise64. Data read by the tracee is printed at exit,
 * as much as the call returned (cut at -s); data written at entry.
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

#include "trc_flags.h"

static int64_t offset_arg(const struct trc_call *c, uint64_t v)
{
	return c->pers == TRC_PERS_32 ? (int32_t)v : (int64_t)v;
}

int trc_dec_fd1(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	return RV_DECODED;
}

int trc_dec_read(struct trc_call *c)
{
	if (!c->exiting) {
		tp_fd(c, c->a[0]);
		tp_sep(c);
		return 0;
	}
	if (tp_failed(c))
		tp_addr(c, c->a[1]);
	else
		tp_buf(c, c->a[1], (uint64_t)c->ret);
	tp_sep(c);
	tp_udec(c, c->a[2]);
	return RV_DEC;
}

int trc_dec_write(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_buf(c, c->a[1], c->a[2]);
	tp_sep(c);
	tp_udec(c, c->a[2]);
	return RV_DECODED;
}

int trc_dec_pread64(struct trc_call *c)
{
	if (!c->exiting)
		return trc_dec_read(c);
	trc_dec_read(c);
	tp_sep(c);
	tp_dec(c, offset_arg(c, c->a[3]));
	return RV_DEC;
}

int trc_dec_pwrite64(struct trc_call *c)
{
	trc_dec_write(c);
	tp_sep(c);
	tp_dec(c, offset_arg(c, c->a[3]));
	return RV_DECODED;
}

int trc_dec_readv(struct trc_call *c)
{
	if (!c->exiting) {
		tp_fd(c, c->a[0]);
		tp_sep(c);
		return 0;
	}
	tp_iov(c, c->a[1], c->a[2], tp_failed(c) ? 0 : (uint64_t)c->ret, !tp_failed(c));
	tp_sep(c);
	tp_udec(c, c->a[2]);
	return RV_DEC;
}

int trc_dec_writev(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_iov(c, c->a[1], c->a[2], UINT64_MAX, true);
	tp_sep(c);
	tp_udec(c, c->a[2]);
	return RV_DECODED;
}

static const struct xlat close_range_flags[] = {
	{2, "CLOSE_RANGE_CLOEXEC"},
	{4, "CLOSE_RANGE_UNSHARE"},
	XEND,
};

int trc_dec_close_range(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_udec(c, (uint32_t)c->a[1]);
	if ((uint32_t)c->a[1] == UINT32_MAX)
		tp_str(c, " /* ~0U */");
	tp_sep(c);
	tp_flags(c, close_range_flags, (uint32_t)c->a[2], "CLOSE_RANGE_???");
	return RV_DECODED;
}

static const struct xlat whence[] = {
	XV(SEEK_SET), XV(SEEK_CUR), XV(SEEK_END), XV(SEEK_DATA), XV(SEEK_HOLE), XEND,
};

int trc_dec_lseek(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_dec(c, offset_arg(c, c->a[1]));
	tp_sep(c);
	tp_xval(c, whence, (uint32_t)c->a[2], "SEEK_???");
	return RV_DECODED;
}

int trc_dec_dup(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	return RV_DECODED | RV_FD;
}

int trc_dec_dup2(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_fd(c, c->a[1]);
	return RV_DECODED | RV_FD;
}

int trc_dec_dup3(struct trc_call *c)
{
	static const struct xlat dup3_flags[] = {XV(O_CLOEXEC), XEND};

	trc_dec_dup2(c);
	tp_sep(c);
	tp_flags(c, dup3_flags, (uint32_t)c->a[2], "O_???");
	return RV_DECODED | RV_FD;
}

static const struct xlat fcntl_cmds[] = {
	XV(F_DUPFD),	     XV(F_GETFD),
	XV(F_SETFD),	     XV(F_GETFL),
	XV(F_SETFL),	     XV(F_GETLK),
	XV(F_SETLK),	     XV(F_SETLKW),
	XV(F_SETOWN),	     XV(F_GETOWN),
	XV(F_SETSIG),	     XV(F_GETSIG),
	XV(F_SETOWN_EX),     XV(F_GETOWN_EX),
	XV(F_OFD_GETLK),     XV(F_OFD_SETLK),
	XV(F_OFD_SETLKW),    XV(F_SETLEASE),
	XV(F_GETLEASE),	     XV(F_NOTIFY),
	XV(F_DUPFD_CLOEXEC), XV(F_SETPIPE_SZ),
	XV(F_GETPIPE_SZ),    XV(F_ADD_SEALS),
	XV(F_GET_SEALS),     XEND,
};

static const struct xlat fd_flags[] = {
	XV(FD_CLOEXEC),
	XEND,
};

static const struct xlat lock_types[] = {
	XV(F_RDLCK),
	XV(F_WRLCK),
	XV(F_UNLCK),
	XEND,
};

static const struct xlat seals[] = {
	XV(F_SEAL_SEAL),  XV(F_SEAL_SHRINK),	   XV(F_SEAL_GROW),
	XV(F_SEAL_WRITE), XV(F_SEAL_FUTURE_WRITE), XEND,
};

static void print_flock(struct trc_call *c, uint64_t addr)
{
	struct flock fl;

	if (c->pers == TRC_PERS_32 || tp_read_or_addr(c, addr, &fl, sizeof(fl))) {
		if (c->pers == TRC_PERS_32)
			tp_addr(c, addr);
		return;
	}
	tp_str(c, "{l_type=");
	tp_xval(c, lock_types, (uint16_t)fl.l_type, "F_???");
	tp_str(c, ", l_whence=");
	tp_xval(c, whence, (uint16_t)fl.l_whence, "SEEK_???");
	tp_fmt(c, ", l_start=%lld, l_len=%lld", (long long)fl.l_start, (long long)fl.l_len);
	if (c->exiting)
		tp_fmt(c, ", l_pid=%d", fl.l_pid);
	buf_putc(c->b, '}');
}

static const struct xlat notify_flags[] = {
	XV(DN_ACCESS), XV(DN_MODIFY), XV(DN_CREATE),	XV(DN_DELETE),
	XV(DN_RENAME), XV(DN_ATTRIB), XV(DN_MULTISHOT), XEND,
};

static const struct xlat owner_types[] = {
	XV(F_OWNER_TID),
	XV(F_OWNER_PID),
	XV(F_OWNER_PGRP),
	XEND,
};

/* F_SETOWN_EX / F_GETOWN_EX: {type=F_OWNER_PID, pid=N} */
static void print_owner_ex(struct trc_call *c, uint64_t addr)
{
	int32_t owner[2];

	if (tp_failed(c) || tp_read_or_addr(c, addr, owner, sizeof(owner))) {
		if (tp_failed(c))
			tp_addr(c, addr);
		return;
	}
	tp_str(c, "{type=");
	tp_xval(c, owner_types, (uint32_t)owner[0], "F_OWNER_???");
	tp_fmt(c, ", pid=%d}", owner[1]);
}

/* fcntl's answer: F_GETFD and F_GETFL come back as flags. */
static int fcntl_exit(struct trc_call *c, unsigned cmd)
{
	struct buf tmp, *line = c->b;

	if (cmd == F_GETOWN_EX) {
		tp_sep(c);
		print_owner_ex(c, c->a[2]);
		return RV_DEC;
	}
	if (c->failed)
		return RV_DEC;
	switch (cmd) {
	case F_GETFD:
		if (!c->ret)
			return RV_DEC;
		tp_to_auxstr(c, "flags ", fd_flags, (uint64_t)c->ret);
		return RV_HEX | RV_STR;
	case F_GETFL:
		buf_init(&tmp);
		buf_puts(&tmp, "flags ");
		c->b = &tmp;
		tp_open_flags(c, (uint64_t)c->ret);
		c->b = line;
		strncpy(c->auxbuf, tmp.data, sizeof(c->auxbuf) - 1);
		c->auxstr = c->auxbuf;
		buf_free(&tmp);
		return RV_HEX | RV_STR;
	case F_GET_SEALS:
		tp_to_auxstr(c, "seals ", seals, (uint64_t)c->ret);
		return RV_HEX | RV_STR;
	case F_GETSIG:
		if (!c->ret)
			return RV_DEC;
		c->auxstr = trc_signal_name((int)c->ret);
		return RV_DEC | RV_STR;
	case F_GETLEASE:
		c->auxstr = xlat_name(lock_types, (uint64_t)c->ret);
		return RV_HEX | RV_STR;
	}
	return RV_DEC;
}

int trc_dec_fcntl(struct trc_call *c)
{
	unsigned cmd = (uint32_t)c->a[1];

	if (c->exiting) {
		if (cmd == F_GETLK || cmd == F_OFD_GETLK) {
			if (tp_failed(c))
				tp_addr(c, c->a[2]);
			else
				print_flock(c, c->a[2]);
		}
		return fcntl_exit(c, cmd);
	}
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_xval(c, fcntl_cmds, cmd, "F_???");
	switch (cmd) {
	case F_GETFD:
	case F_GETFL:
	case F_GET_SEALS:
		return 0; /* the answer is decoded at exit */
	case F_GETSIG:
	case F_GETLEASE:
	case F_GETOWN_EX:
		return 0; /* the answer is decoded at exit */
	case F_GETOWN:
	case F_GETPIPE_SZ:
		return RV_DECODED;
	case F_SETOWN:
	case F_SETPIPE_SZ:
		tp_sep(c);
		tp_int(c, c->a[2]);
		return RV_DECODED;
	case F_SETOWN_EX:
		tp_sep(c);
		print_owner_ex(c, c->a[2]);
		return RV_DECODED;
	case F_NOTIFY:
		tp_sep(c);
		tp_flags(c, notify_flags, c->a[2], "DN_???");
		return RV_DECODED;
	case F_SETLEASE:
		tp_sep(c);
		tp_xval(c, lock_types, c->a[2], "F_???");
		return RV_DECODED;
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		tp_sep(c);
		tp_int(c, c->a[2]);
		return RV_DECODED | RV_FD;
	case F_SETFD:
		tp_sep(c);
		tp_flags(c, fd_flags, c->a[2], "FD_???");
		return RV_DECODED;
	case F_SETFL:
		tp_sep(c);
		tp_open_flags(c, c->a[2]);
		return RV_DECODED;
	case F_SETLK:
	case F_SETLKW:
	case F_OFD_SETLK:
	case F_OFD_SETLKW:
		tp_sep(c);
		print_flock(c, c->a[2]);
		return RV_DECODED;
	case F_GETLK:
	case F_OFD_GETLK:
		tp_sep(c);
		return 0;
	case F_SETSIG:
		tp_sep(c);
		tp_signame(c, c->a[2]);
		return RV_DECODED;
	case F_ADD_SEALS:
		tp_sep(c);
		tp_flags(c, seals, c->a[2], "F_SEAL_???");
		return RV_DECODED;
	}
	tp_sep(c);
	tp_hex(c, c->a[2]);
	return RV_DECODED;
}

/* Directory entries: strace (without -v) shows only how many there are. */
int trc_dec_getdents(struct trc_call *c)
{
	unsigned char buf[65536];
	size_t len, off = 0, n = 0;
	size_t reclen_at = c->pers == TRC_PERS_32 ? 8 : 16;

	if (!c->exiting) {
		tp_fd(c, c->a[0]);
		tp_sep(c);
		return 0;
	}
	tp_addr(c, c->a[1]);
	if (!tp_failed(c)) {
		len = (size_t)c->ret < sizeof(buf) ? (size_t)c->ret : sizeof(buf);
		if (tp_read(c, c->a[1], buf, len) == 0) {
			while (off + reclen_at + 2 <= len) {
				uint16_t reclen;

				memcpy(&reclen, buf + off + reclen_at, 2);
				if (!reclen)
					break;
				off += reclen;
				n++;
			}
			tp_fmt(c, " /* %zu entries */", n);
		}
	}
	tp_sep(c);
	tp_udec(c, (uint32_t)c->a[2]);
	return RV_DEC;
}

static void print_pipefds(struct trc_call *c, uint64_t addr)
{
	int fds[2];

	if (tp_failed(c) || tp_read(c, addr, fds, sizeof(fds))) {
		tp_addr(c, addr);
		return;
	}
	buf_putc(c->b, '[');
	tp_fd(c, (uint64_t)fds[0]);
	tp_sep(c);
	tp_fd(c, (uint64_t)fds[1]);
	buf_putc(c->b, ']');
}

int trc_dec_pipe(struct trc_call *c)
{
	if (!c->exiting)
		return 0;
	print_pipefds(c, c->a[0]);
	return RV_DEC;
}

int trc_dec_pipe2(struct trc_call *c)
{
	static const struct xlat pipe_flags[] = {
		XV(O_CLOEXEC),
		XV(O_DIRECT),
		XV(O_NONBLOCK),
		XEND,
	};

	if (!c->exiting)
		return 0;
	print_pipefds(c, c->a[0]);
	tp_sep(c);
	tp_flags(c, pipe_flags, (uint32_t)c->a[1], "O_???");
	return RV_DEC;
}

int trc_dec_fadvise64(struct trc_call *c)
{
	static const struct xlat advice[] = {
		XV(POSIX_FADV_NORMAL),
		XV(POSIX_FADV_RANDOM),
		XV(POSIX_FADV_SEQUENTIAL),
		XV(POSIX_FADV_WILLNEED),
		XV(POSIX_FADV_DONTNEED),
		XV(POSIX_FADV_NOREUSE),
		XEND,
	};

	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_dec(c, (int64_t)c->a[1]);
	tp_sep(c);
	tp_dec(c, (int64_t)c->a[2]);
	tp_sep(c);
	tp_xval_dec(c, advice, (uint32_t)c->a[3], "POSIX_FADV_???");
	return RV_DECODED;
}
