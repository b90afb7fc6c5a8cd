/*
 * trc_stat.c: the stat family, and the time structures other decoders share.
 *
 * Like strace without -v, a struct stat shows its mode and its size (or,
 * for a device, its device number) and then "..."; with -v every field,
 * times with strace's local-time comment. The kernel's x86-64
 * struct stat is libc's, so it is read as is; the i386 layouts are left
 * raw (the i386 stat calls have no decoder in trc_syscalls.in).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <time.h>

#include "trc_flags.h"

/* " /- 2026-12-05T13:08:16.396266609+0000 -/" after a time in seconds, as strace's comment. */
static void tp_time_comment(struct trc_call *c, int64_t sec, uint64_t nsec)
{
	char buf[64];
	time_t t = (time_t)sec;
	struct tm tm;
	size_t n;

	if ((sec == 0 && nsec == 0) || nsec > 999999999 || !localtime_r(&t, &tm))
		return;
	n = strftime(buf, sizeof(buf), "%FT%T", &tm);
	if (!n)
		return;
	if (nsec)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ".%09llu",
				      (unsigned long long)nsec);
	if (n < sizeof(buf) && strftime(buf + n, sizeof(buf) - n, "%z", &tm))
		tp_fmt(c, " /* %s */", buf);
}

static void print_dev(struct trc_call *c, const char *name, uint64_t dev)
{
	tp_fmt(c, "%s=makedev(%#x, %#x)", name, major(dev), minor(dev));
}

static void print_stat_time(struct trc_call *c, const char *name, int64_t sec, uint64_t nsec)
{
	tp_fmt(c, ", %s=%lld", name, (long long)sec);
	tp_time_comment(c, sec, nsec);
	tp_fmt(c, ", %s_nsec=%llu", name, (unsigned long long)nsec);
}

/* Without -v: the mode and the size (or a device's number), then "...". */
static void print_stat(struct trc_call *c, uint64_t addr)
{
	struct stat st;

	if (tp_failed(c) || tp_read(c, addr, &st, sizeof(st))) {
		tp_addr(c, addr);
		return;
	}
	buf_putc(c->b, '{');
	if (!c->abbrev) {
		print_dev(c, "st_dev", st.st_dev);
		tp_fmt(c, ", st_ino=%llu, ", (unsigned long long)st.st_ino);
	}
	tp_str(c, "st_mode=");
	tp_mode(c, st.st_mode);
	if (!c->abbrev)
		tp_fmt(c, ", st_nlink=%llu, st_uid=%u, st_gid=%u, st_blksize=%lld, st_blocks=%lld",
		       (unsigned long long)st.st_nlink, st.st_uid, st.st_gid,
		       (long long)st.st_blksize, (long long)st.st_blocks);
	tp_sep(c);
	if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
		print_dev(c, "st_rdev", st.st_rdev);
	else
		tp_fmt(c, "st_size=%lld", (long long)st.st_size);
	if (c->abbrev) {
		tp_str(c, ", ...}");
		return;
	}
	print_stat_time(c, "st_atime", st.st_atim.tv_sec, (uint64_t)st.st_atim.tv_nsec);
	print_stat_time(c, "st_mtime", st.st_mtim.tv_sec, (uint64_t)st.st_mtim.tv_nsec);
	print_stat_time(c, "st_ctime", st.st_ctim.tv_sec, (uint64_t)st.st_ctim.tv_nsec);
	buf_putc(c->b, '}');
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
	XV(AT_STATX_FORCE_SYNC),
	XV(AT_STATX_DONT_SYNC),
	XEND,
};

static const struct xlat statx_attrs[] = {
	{0x4, "STATX_ATTR_COMPRESSED"},	   {0x10, "STATX_ATTR_IMMUTABLE"},
	{0x20, "STATX_ATTR_APPEND"},	   {0x40, "STATX_ATTR_NODUMP"},
	{0x800, "STATX_ATTR_ENCRYPTED"},   {0x1000, "STATX_ATTR_AUTOMOUNT"},
	{0x2000, "STATX_ATTR_MOUNT_ROOT"}, {0x100000, "STATX_ATTR_VERITY"},
	{0x200000, "STATX_ATTR_DAX"},	   XEND,
};

static void print_statx_time(struct trc_call *c, const char *name, const struct statx_timestamp *ts)
{
	tp_fmt(c, ", %s={tv_sec=%lld, tv_nsec=%u}", name, (long long)ts->tv_sec, ts->tv_nsec);
	tp_time_comment(c, ts->tv_sec, ts->tv_nsec);
}

/* The fields the mask says are filled in; without -v a few, then "...". */
static void print_statx(struct trc_call *c, const struct statx *sx)
{
	unsigned m = sx->stx_mask;
	bool v = !c->abbrev;
	uint64_t more[2];

	tp_str(c, "{stx_mask=");
	tp_flags(c, statx_masks, m, "STATX_???");
	if (v)
		tp_fmt(c, ", stx_blksize=%u", sx->stx_blksize);
	tp_str(c, ", stx_attributes=");
	tp_flags(c, statx_attrs, sx->stx_attributes, "STATX_ATTR_???");
	if (v && (m & STATX_NLINK))
		tp_fmt(c, ", stx_nlink=%u", sx->stx_nlink);
	if (v && (m & STATX_UID))
		tp_fmt(c, ", stx_uid=%u", sx->stx_uid);
	if (v && (m & STATX_GID))
		tp_fmt(c, ", stx_gid=%u", sx->stx_gid);
	if (m & (STATX_TYPE | STATX_MODE)) {
		tp_str(c, ", stx_mode=");
		tp_mode(c, sx->stx_mode);
	}
	if (v && (m & STATX_INO))
		tp_fmt(c, ", stx_ino=%llu", (unsigned long long)sx->stx_ino);
	if (m & STATX_SIZE)
		tp_fmt(c, ", stx_size=%llu", (unsigned long long)sx->stx_size);
	if (!v) {
		tp_str(c, ", ...}");
		return;
	}
	if (m & STATX_BLOCKS)
		tp_fmt(c, ", stx_blocks=%llu", (unsigned long long)sx->stx_blocks);
	tp_str(c, ", stx_attributes_mask=");
	tp_flags(c, statx_attrs, sx->stx_attributes_mask, "STATX_ATTR_???");
	if (m & STATX_ATIME)
		print_statx_time(c, "stx_atime", &sx->stx_atime);
	if (m & STATX_BTIME)
		print_statx_time(c, "stx_btime", &sx->stx_btime);
	if (m & STATX_CTIME)
		print_statx_time(c, "stx_ctime", &sx->stx_ctime);
	if (m & STATX_MTIME)
		print_statx_time(c, "stx_mtime", &sx->stx_mtime);
	tp_fmt(c, ", stx_rdev_major=%u, stx_rdev_minor=%u, stx_dev_major=%u, stx_dev_minor=%u",
	       sx->stx_rdev_major, sx->stx_rdev_minor, sx->stx_dev_major, sx->stx_dev_minor);
	/* STATX_MNT_ID, STATX_DIOALIGN: the kernel's fields after stx_dev_minor */
	memcpy(more, (const char *)sx + 0x90, sizeof(more));
	if (m & 0x1000)
		tp_fmt(c, ", stx_mnt_id=%#llx", (unsigned long long)more[0]);
	if (m & 0x2000)
		tp_fmt(c, ", stx_dio_mem_align=%u, stx_dio_offset_align=%u", (unsigned)more[1],
		       (unsigned)(more[1] >> 32));
	buf_putc(c->b, '}');
}

int trc_dec_statx(struct trc_call *c)
{
	struct statx sx;
	uint64_t flags = (uint32_t)c->a[2];

	if (!c->exiting) {
		tp_dirfd(c, c->a[0]);
		tp_sep(c);
		tp_path(c, c->a[1]);
		tp_sep(c);
		if (flags & AT_STATX_SYNC_TYPE)
			tp_flags(c, statx_sync, flags & AT_STATX_SYNC_TYPE, NULL);
		else
			tp_str(c, "AT_STATX_SYNC_AS_STAT");
		flags &= ~(uint64_t)AT_STATX_SYNC_TYPE;
		if (flags) {
			buf_putc(c->b, '|');
			tp_flags(c, trc_at_flags, flags, NULL);
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
	print_statx(c, &sx);
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
		ts[1] = (uint32_t)ts32[1];
	} else if (tp_read_or_addr(c, addr, ts, sizeof(ts))) {
		return;
	}
	tp_fmt(c, "{tv_sec=%lld, tv_nsec=%llu}", (long long)ts[0], (unsigned long long)ts[1]);
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
