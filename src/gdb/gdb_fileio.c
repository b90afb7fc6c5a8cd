/*
 * gdb_fileio: conversions between host file I/O values and gdb's File-I/O
 * representation (see gdb_fileio.h). Pure: no system calls.
 */
#include "gdb_fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>

#include "../rsp/rsp.h"

#define GDB_FILEIO_O_ACCMODE 0x3
#define GDB_FILEIO_O_KNOWN                                                                         \
	(GDB_FILEIO_O_ACCMODE | GDB_FILEIO_O_APPEND | GDB_FILEIO_O_CREAT | GDB_FILEIO_O_TRUNC |    \
	 GDB_FILEIO_O_EXCL)

int gdb_fileio_open_flags(uint64_t gflags, int *host_flags)
{
	int f;

	if (gflags & ~(uint64_t)GDB_FILEIO_O_KNOWN)
		return -EINVAL;
	switch (gflags & GDB_FILEIO_O_ACCMODE) {
	case GDB_FILEIO_O_RDONLY:
		f = O_RDONLY;
		break;
	case GDB_FILEIO_O_WRONLY:
		f = O_WRONLY;
		break;
	case GDB_FILEIO_O_RDWR:
		f = O_RDWR;
		break;
	default:
		return -EINVAL; /* 3: Linux's "no access" mode, never meant by gdb */
	}
	if (gflags & GDB_FILEIO_O_APPEND)
		f |= O_APPEND;
	if (gflags & GDB_FILEIO_O_CREAT)
		f |= O_CREAT;
	if (gflags & GDB_FILEIO_O_TRUNC)
		f |= O_TRUNC;
	if (gflags & GDB_FILEIO_O_EXCL)
		f |= O_EXCL;
	*host_flags = f;
	return 0;
}

int gdb_fileio_open_mode(uint64_t gmode, mode_t *host_mode)
{
	const uint64_t known = GDB_FILEIO_S_IFREG | GDB_FILEIO_S_IFDIR | GDB_FILEIO_S_PERM;

	if (gmode & ~known)
		return -EINVAL;
	/*
	 * gdb's permission bits have the POSIX values. The type bits mean
	 * nothing to open(2), and setuid/setgid/sticky cannot be asked for.
	 */
	*host_mode = (mode_t)(gmode & GDB_FILEIO_S_PERM);
	return 0;
}

uint32_t gdb_fileio_mode_from_host(mode_t m)
{
	uint32_t g = (uint32_t)(m & 0777);

	if (S_ISREG(m))
		g |= GDB_FILEIO_S_IFREG;
	else if (S_ISDIR(m))
		g |= GDB_FILEIO_S_IFDIR;
	else if (S_ISCHR(m))
		g |= GDB_FILEIO_S_IFCHR;
	return g;
}

int gdb_fileio_errno(int host_errno)
{
	switch (host_errno) {
	case EPERM:
		return GDB_FILEIO_EPERM;
	case ENOENT:
		return GDB_FILEIO_ENOENT;
	case EINTR:
		return GDB_FILEIO_EINTR;
	case EIO:
		return GDB_FILEIO_EIO;
	case EBADF:
		return GDB_FILEIO_EBADF;
	case EACCES:
		return GDB_FILEIO_EACCES;
	case EFAULT:
		return GDB_FILEIO_EFAULT;
	case EBUSY:
		return GDB_FILEIO_EBUSY;
	case EEXIST:
		return GDB_FILEIO_EEXIST;
	case ENODEV:
		return GDB_FILEIO_ENODEV;
	case ENOTDIR:
		return GDB_FILEIO_ENOTDIR;
	case EISDIR:
		return GDB_FILEIO_EISDIR;
	case EINVAL:
		return GDB_FILEIO_EINVAL;
	case ENFILE:
		return GDB_FILEIO_ENFILE;
	case EMFILE:
		return GDB_FILEIO_EMFILE;
	case EFBIG:
		return GDB_FILEIO_EFBIG;
	case ENOSPC:
		return GDB_FILEIO_ENOSPC;
	case ESPIPE:
		return GDB_FILEIO_ESPIPE;
	case EROFS:
		return GDB_FILEIO_EROFS;
	case ENOSYS:
		return GDB_FILEIO_ENOSYS;
	case ENAMETOOLONG:
		return GDB_FILEIO_ENAMETOOLONG;
	default:
		return GDB_FILEIO_EUNKNOWN;
	}
}

static uint8_t *put_be(uint8_t *p, uint64_t v, int bytes)
{
	for (int i = bytes - 1; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
	return p + bytes;
}

void gdb_fileio_encode_stat(const struct stat *st, uint8_t out[GDB_FILEIO_STAT_SIZE])
{
	uint8_t *p = out;

	/*
	 * 32-bit fields are truncated, as gdbserver does: st_dev keeps the
	 * real device (the manual's 0/1 file/console meaning is for target
	 * File-I/O) because gdb's BFD cache tells files apart by device,
	 * inode, size and mtime.
	 */
	p = put_be(p, (uint64_t)st->st_dev, 4);
	p = put_be(p, (uint64_t)st->st_ino, 4);
	p = put_be(p, gdb_fileio_mode_from_host(st->st_mode), 4);
	p = put_be(p, (uint64_t)st->st_nlink, 4);
	p = put_be(p, (uint64_t)st->st_uid, 4);
	p = put_be(p, (uint64_t)st->st_gid, 4);
	p = put_be(p, (uint64_t)st->st_rdev, 4);
	p = put_be(p, (uint64_t)st->st_size, 8);
	p = put_be(p, (uint64_t)st->st_blksize, 8);
	p = put_be(p, (uint64_t)st->st_blocks, 8);
	p = put_be(p, (uint64_t)st->st_atime, 4);
	p = put_be(p, (uint64_t)st->st_mtime, 4);
	put_be(p, (uint64_t)st->st_ctime, 4);
}

int gdb_fileio_parse_int(const char **p, const char *end, int64_t *out)
{
	const char *s = *p;
	bool neg = false;
	uint64_t v;

	if (s < end && *s == '-') {
		neg = true;
		s++;
	}
	if (rsp_parse_hex(&s, end, &v) < 0)
		return -EINVAL;
	if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
		return -EINVAL;
	/* -(2^63) has no positive counterpart: negate in unsigned arithmetic. */
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	*p = s;
	return 0;
}

int gdb_fileio_decode_path(const char *hex, size_t hexlen, char *out, size_t outsz)
{
	size_t n = hexlen / 2;

	if (hexlen % 2)
		return -EINVAL;
	if (n == 0)
		return -ENOENT;
	if (n >= outsz)
		return -ENAMETOOLONG;
	if (rsp_hex_decode(hex, hexlen, (uint8_t *)out, n) < 0)
		return -EINVAL;
	if (memchr(out, '\0', n))
		return -EINVAL; /* the kernel would silently cut the name short */
	out[n] = '\0';
	return 0;
}

size_t gdb_fileio_fit_escaped(const uint8_t *data, size_t n, size_t budget)
{
	size_t used = 0, i;

	for (i = 0; i < n; i++) {
		uint8_t c = data[i];
		size_t w = (c == '#' || c == '$' || c == '}' || c == '*') ? 2 : 1;

		if (used + w > budget)
			break;
		used += w;
	}
	return i;
}
