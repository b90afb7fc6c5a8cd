/*
 * trc_stat.c: the stat family, and the time structures other decoders share.
 *
 * Like strace without -v, a struct stat shows its mode and its size (or,
 * for a device, its device number) and then "...". The kernel's x86-64
 * struct stat is libc's, so it is read as is; the i386 layouts are left
 * raw (the i386 stat calls have no decoder in trc_syscalls.in).
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>

#include "trc_flags.h"

static void print_stat(struct trc_call *c, uint64_t addr)
{
	struct stat st;

	if (tp_failed(c) || tp_read(c, addr, &st, sizeof(st))) {
		tp_addr(c, addr);
		return;
	}
	tp_str(c, "{st_mode=");
	tp_mode(c, st.st_mode);
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		tp_fmt(c, ", st_rdev=makedev(%#x, %#x)", major(st.st_rdev), minor(st.st_rdev));
	else
		tp_fmt(c, ", st_size=%lld", (long long)st.st_size);
	tp_str(c, ", ...}");
}

static int path_stat(struct trc_call *c)
{
	if (!c->exiting) {
		tp_path(c, c->a[0]);
		tp_sep(c);
		return 0;
	}
	print_stat(c, c->a[1]);
	return RV_DEC;
}

int trc_dec_stat(struct trc_call *c)
{
	return path_stat(c);
}

int trc_dec_lstat(struct trc_call *c)
{
	return path_stat(c);
}

int trc_dec_fstat(struct trc_call *c)
{
	if (!c->exiting) {
		tp_fd(c, c->a[0]);
		tp_sep(c);
		return 0;
	}
	print_stat(c, c->a[1]);
	return RV_DEC;
}

int trc_dec_newfstatat(struct trc_call *c)
{
	if (!c->exiting) {
		tp_dirfd(c, c->a[0]);
		tp_sep(c);
		tp_path(c, c->a[1]);
		tp_sep(c);
		return 0;
	}
	print_stat(c, c->a[2]);
	tp_sep(c);
	tp_flags(c, trc_at_flags, (uint32_t)c->a[3], "AT_???");
	return RV_DEC;
}

static const struct xlat statx_masks[] = {
	XV(STATX_ALL),
	XV(STATX_BASIC_STATS),
	XV(STATX_TYPE),
	XV(STATX_MODE),
	XV(STATX_NLINK),
	XV(STATX_UID),
	XV(STATX_GID),
	XV(STATX_ATIME),
	XV(STATX_MTIME),
	XV(STATX_CTIME),
	XV(STATX_INO),
	XV(STATX_SIZE),
	XV(STATX_BLOCKS),
	XV(STATX_BTIME),
	{0x1000, "STATX_MNT_ID"},
	{0x2000, "STATX_DIOALIGN"},
	XEND,
};

static const struct xlat statx_sync[] = {
	XV(AT_STATX_SYNC_AS_STAT),
	XV(AT_STATX_FORCE_SYNC),
	XV(AT_STATX_DONT_SYNC),
	XEND,
};

static const struct xlat statx_at_flags[] = {
	XV(AT_SYMLINK_NOFOLLOW), XV(AT_REMOVEDIR),  XV(AT_SYMLINK_FOLLOW),
	XV(AT_NO_AUTOMOUNT),	 XV(AT_EMPTY_PATH), XEND,
};

int trc_dec_statx(struct trc_call *c)
{
	struct statx sx;
	uint64_t flags = (uint32_t)c->a[2];

	if (!c->exiting) {
		tp_dirfd(c, c->a[0]);
		tp_sep(c);
		tp_path(c, c->a[1]);
		tp_sep(c);
		tp_xval(c, statx_sync, flags & AT_STATX_SYNC_TYPE, NULL);
		flags &= ~(uint64_t)AT_STATX_SYNC_TYPE;
		if (flags) {
			buf_putc(c->b, '|');
			tp_flags(c, statx_at_flags, flags, NULL);
		}
		tp_sep(c);
		tp_flags(c, statx_masks, (uint32_t)c->a[3], "STATX_???");
		tp_sep(c);
		return 0;
	}
	if (tp_failed(c) || tp_read(c, c->a[4], &sx, sizeof(sx))) {
		tp_addr(c, c->a[4]);
		return RV_DEC;
	}
	tp_str(c, "{stx_mask=");
	tp_flags(c, statx_masks, sx.stx_mask, "STATX_???");
	tp_fmt(c, ", stx_attributes=");
	tp_hex(c, sx.stx_attributes);
	tp_str(c, ", stx_mode=");
	tp_mode(c, sx.stx_mode);
	tp_fmt(c, ", stx_size=%llu, ...}", (unsigned long long)sx.stx_size);
	return RV_DEC;
}

void tp_timespec_at(struct trc_call *c, uint64_t addr)
{
	int64_t ts[2];
	int32_t ts32[2];

	if (c->pers == TRC_PERS_32) {
		if (tp_read_or_addr(c, addr, ts32, sizeof(ts32)))
			return;
		ts[0] = ts32[0];
		ts[1] = ts32[1];
	} else if (tp_read_or_addr(c, addr, ts, sizeof(ts))) {
		return;
	}
	tp_fmt(c, "{tv_sec=%lld, tv_nsec=%lld}", (long long)ts[0], (long long)ts[1]);
}

void tp_timeval_at(struct trc_call *c, uint64_t addr)
{
	int64_t tv[2];
	int32_t tv32[2];

	if (c->pers == TRC_PERS_32) {
		if (tp_read_or_addr(c, addr, tv32, sizeof(tv32)))
			return;
		tv[0] = tv32[0];
		tv[1] = tv32[1];
	} else if (tp_read_or_addr(c, addr, tv, sizeof(tv))) {
		return;
	}
	tp_fmt(c, "{tv_sec=%lld, tv_usec=%lld}", (long long)tv[0], (long long)tv[1]);
}
