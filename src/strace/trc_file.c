/*
 * trc_file.c: decoders of the syscalls that take paths.
 *
 * open and friends, access, readlink, unlink, mkdir, rename, link,
 * chmod/chown, truncate, getcwd, mknod, umask. Paths print in full (not
 * cut at -s, as strace does); a dirfd prints as AT_FDCWD or an fd.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "trc_flags.h"

/* The kernel's O_LARGEFILE: libc's is 0 on x86-64. */
#define K_O_LARGEFILE 0100000

static const struct xlat open_access[] = {
	XV(O_RDONLY), XV(O_WRONLY), XV(O_RDWR), XV(O_ACCMODE), XEND,
};

static const struct xlat open_flags[] = {
	XV(O_CREAT),
	XV(O_EXCL),
	XV(O_NOCTTY),
	XV(O_TRUNC),
	XV(O_APPEND),
	XV(O_NONBLOCK),
	XV(O_SYNC),
	XV(O_DSYNC),
	XV(O_ASYNC),
	XV(O_DIRECT),
	{K_O_LARGEFILE, "O_LARGEFILE"},
	XV(O_TMPFILE),
	XV(O_DIRECTORY),
	XV(O_NOFOLLOW),
	XV(O_NOATIME),
	XV(O_CLOEXEC),
	XV(O_PATH),
	XEND,
};

const struct xlat trc_at_flags[] = {
	XV(AT_SYMLINK_NOFOLLOW),
	XV(AT_REMOVEDIR),
	XV(AT_SYMLINK_FOLLOW),
	XV(AT_NO_AUTOMOUNT),
	XV(AT_EMPTY_PATH),
	{0x8000, "AT_RECURSIVE"},
	XEND,
};

static const struct xlat access_modes[] = {
	XV(F_OK), XV(R_OK), XV(W_OK), XV(X_OK), XEND,
};

static const struct xlat faccessat_flags[] = {
	XV(AT_SYMLINK_NOFOLLOW),
	XV(AT_EACCESS),
	XV(AT_EMPTY_PATH),
	XEND,
};

static const struct xlat rename_flags[] = {
	XV(RENAME_NOREPLACE),
	XV(RENAME_EXCHANGE),
	XV(RENAME_WHITEOUT),
	XEND,
};

void tp_open_flags(struct trc_call *c, uint64_t flags)
{
	tp_xval(c, open_access, flags & O_ACCMODE, NULL);
	flags &= ~(uint64_t)O_ACCMODE;
	if (flags) {
		buf_putc(c->b, '|');
		tp_flags(c, open_flags, flags, NULL);
	}
}

void tp_to_auxstr(struct trc_call *c, const char *prefix, const struct xlat *x, uint64_t val)
{
	struct buf tmp, *line = c->b;

	buf_init(&tmp);
	buf_puts(&tmp, prefix);
	c->b = &tmp;
	tp_flags(c, x, val, NULL);
	c->b = line;
	snprintf(c->auxbuf, sizeof(c->auxbuf), "%s", tmp.data);
	c->auxstr = c->auxbuf;
	buf_free(&tmp);
}

/* flags, and the mode when the call may create a file. */
static void open_tail(struct trc_call *c, uint64_t flags, uint64_t mode)
{
	tp_open_flags(c, flags);
	if ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) {
		tp_sep(c);
		tp_umode(c, mode);
	}
}

int trc_dec_open(struct trc_call *c)
{
	tp_path(c, c->a[0]);
	tp_sep(c);
	open_tail(c, c->a[1], c->a[2]);
	return RV_DECODED | RV_FD;
}

int trc_dec_openat(struct trc_call *c)
{
	tp_dirfd(c, c->a[0]);
	tp_sep(c);
	tp_path(c, c->a[1]);
	tp_sep(c);
	open_tail(c, c->a[2], c->a[3]);
	return RV_DECODED | RV_FD;
}

int trc_dec_creat(struct trc_call *c)
{
	tp_path(c, c->a[0]);
	tp_sep(c);
	tp_umode(c, c->a[1]);
	return RV_DECODED | RV_FD;
}

static void path_access(struct trc_call *c, uint64_t path, uint64_t mode)
{
	tp_path(c, path);
	tp_sep(c);
	tp_flags(c, access_modes, (uint32_t)mode, "?_OK");
}

int trc_dec_access(struct trc_call *c)
{
	path_access(c, c->a[0], c->a[1]);
	return RV_DECODED;
}

int trc_dec_faccessat(struct trc_call *c)
{
	tp_dirfd(c, c->a[0]);
	tp_sep(c);
	path_access(c, c->a[1], c->a[2]);
	return RV_DECODED;
}

int trc_dec_faccessat2(struct trc_call *c)
{
	trc_dec_faccessat(c);
	tp_sep(c);
	tp_flags(c, faccessat_flags, (uint32_t)c->a[3], "AT_???");
	return RV_DECODED;
}

/* readlink's buffer at exit: ret bytes, cut at -s. */
static int readlink_tail(struct trc_call *c, uint64_t buf, uint64_t size)
{
	if (tp_failed(c))
		tp_addr(c, buf);
	else
		tp_buf(c, buf, (uint64_t)c->ret);
	tp_sep(c);
	tp_udec(c, size);
	return RV_DEC;
}

int trc_dec_readlink(struct trc_call *c)
{
	if (!c->exiting) {
		tp_path(c, c->a[0]);
		tp_sep(c);
		return 0;
	}
	return readlink_tail(c, c->a[1], c->a[2]);
}

int trc_dec_readlinkat(struct trc_call *c)
{
	if (!c->exiting) {
		tp_dirfd(c, c->a[0]);
		tp_sep(c);
		tp_path(c, c->a[1]);
		tp_sep(c);
		return 0;
	}
	return readlink_tail(c, c->a[2], c->a[3]);
}

int trc_dec_path1(struct trc_call *c)
{
	tp_path(c, c->a[0]);
	return RV_DECODED;
}

int trc_dec_path2(struct trc_call *c)
{
	tp_path(c, c->a[0]);
	tp_sep(c);
	tp_path(c, c->a[1]);
	return RV_DECODED;
}

int trc_dec_unlinkat(struct trc_call *c)
{
	tp_dirfd(c, c->a[0]);
	tp_sep(c);
	tp_path(c, c->a[1]);
	tp_sep(c);
	tp_flags(c, trc_at_flags, (uint32_t)c->a[2], "AT_???");
	return RV_DECODED;
}

int trc_dec_mkdir(struct trc_call *c)
{
	tp_path(c, c->a[0]);
	tp_sep(c);
	tp_umode(c, c->a[1]);
	return RV_DECODED;
}

int trc_dec_mkdirat(struct trc_call *c)
{
	tp_dirfd(c, c->a[0]);
	tp_sep(c);
	tp_path(c, c->a[1]);
	tp_sep(c);
	tp_umode(c, c->a[2]);
	return RV_DECODED;
}

static void dir_path(struct trc_call *c, uint64_t dirfd, uint64_t path)
{
	tp_dirfd(c, dirfd);
	tp_sep(c);
	tp_path(c, path);
}

int trc_dec_renameat(struct trc_call *c)
{
	dir_path(c, c->a[0], c->a[1]);
	tp_sep(c);
	dir_path(c, c->a[2], c->a[3]);
	return RV_DECODED;
}

int trc_dec_renameat2(struct trc_call *c)
{
	trc_dec_renameat(c);
	tp_sep(c);
	tp_flags(c, rename_flags, (uint32_t)c->a[4], "RENAME_???");
	return RV_DECODED;
}

int trc_dec_linkat(struct trc_call *c)
{
	trc_dec_renameat(c);
	tp_sep(c);
	tp_flags(c, trc_at_flags, (uint32_t)c->a[4], "AT_???");
	return RV_DECODED;
}

int trc_dec_symlinkat(struct trc_call *c)
{
	tp_path(c, c->a[0]);
	tp_sep(c);
	dir_path(c, c->a[1], c->a[2]);
	return RV_DECODED;
}

int trc_dec_chmod(struct trc_call *c)
{
	return trc_dec_mkdir(c);
}

int trc_dec_fchmod(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_umode(c, c->a[1]);
	return RV_DECODED;
}

int trc_dec_fchmodat(struct trc_call *c)
{
	return trc_dec_mkdirat(c);
}

/* A uid or gid: unsigned, but -1 (unchanged) as -1. */
static void tp_id(struct trc_call *c, uint64_t id)
{
	if ((uint32_t)id == UINT32_MAX)
		tp_str(c, "-1");
	else
		tp_udec(c, (uint32_t)id);
}

static void owner(struct trc_call *c, uint64_t uid, uint64_t gid)
{
	tp_id(c, uid);
	tp_sep(c);
	tp_id(c, gid);
}

int trc_dec_chown(struct trc_call *c)
{
	tp_path(c, c->a[0]);
	tp_sep(c);
	owner(c, c->a[1], c->a[2]);
	return RV_DECODED;
}

int trc_dec_fchown(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	owner(c, c->a[1], c->a[2]);
	return RV_DECODED;
}

int trc_dec_fchownat(struct trc_call *c)
{
	dir_path(c, c->a[0], c->a[1]);
	tp_sep(c);
	owner(c, c->a[2], c->a[3]);
	tp_sep(c);
	tp_flags(c, trc_at_flags, (uint32_t)c->a[4], "AT_???");
	return RV_DECODED;
}

int trc_dec_truncate(struct trc_call *c)
{
	tp_path(c, c->a[0]);
	tp_sep(c);
	tp_dec(c, c->pers == TRC_PERS_32 ? (int32_t)c->a[1] : (int64_t)c->a[1]);
	return RV_DECODED;
}

int trc_dec_ftruncate(struct trc_call *c)
{
	tp_fd(c, c->a[0]);
	tp_sep(c);
	tp_dec(c, c->pers == TRC_PERS_32 ? (int32_t)c->a[1] : (int64_t)c->a[1]);
	return RV_DECODED;
}

int trc_dec_getcwd(struct trc_call *c)
{
	if (!c->exiting)
		return 0;
	if (tp_failed(c))
		tp_addr(c, c->a[0]);
	else
		tp_path(c, c->a[0]);
	tp_sep(c);
	tp_udec(c, c->a[1]);
	return RV_DEC;
}

int trc_dec_mknod(struct trc_call *c)
{
	uint16_t mode = (uint16_t)c->a[1]; /* the kernel's umode_t */
	uint32_t dev = (uint32_t)c->a[2];

	tp_path(c, c->a[0]);
	tp_sep(c);
	tp_mode(c, mode);
	if (S_ISCHR(mode) || S_ISBLK(mode))
		tp_fmt(c, ", makedev(%#x, %#x)", major(dev), minor(dev));
	return RV_DECODED;
}

int trc_dec_umask(struct trc_call *c)
{
	tp_umode(c, c->a[0]);
	return RV_DECODED | RV_OCT;
}
