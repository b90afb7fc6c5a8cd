/*
 * gdb's File-I/O representation (src/gdb/gdb_fileio.c): open flags, mode
 * bits, errno numbers and struct stat, checked against the values in the
 * GDB manual's "Protocol-specific Representation of Datatypes" and what
 * gdbserver sends. The file under test is included, so that this test
 * does not depend on how the Makefile groups the sources.
 */
#include "../../src/gdb/gdb_fileio.c"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>

#include "tap.h"

static void test_flags(void)
{
	int f = -1;
	mode_t m = 0;

	is_int(gdb_fileio_open_flags(0, &f), 0, "O_RDONLY accepted");
	is_int(f, O_RDONLY, "O_RDONLY");
	gdb_fileio_open_flags(0x1, &f);
	is_int(f, O_WRONLY, "O_WRONLY");
	gdb_fileio_open_flags(0x2, &f);
	is_int(f, O_RDWR, "O_RDWR");
	is_int(gdb_fileio_open_flags(0x1 | 0x8 | 0x200 | 0x400 | 0x800, &f), 0,
	       "all flags accepted");
	is_int(f, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_EXCL, "all flags converted");
	is_int(gdb_fileio_open_flags(0x3, &f), -EINVAL, "access mode 3 refused");
	is_int(gdb_fileio_open_flags(0x1000, &f), -EINVAL, "unknown flag refused");
	is_int(gdb_fileio_open_flags(UINT64_MAX, &f), -EINVAL, "all bits refused");

	is_int(gdb_fileio_open_mode(0644, &m), 0, "mode 0644 accepted");
	is_int(m, 0644, "mode 0644");
	is_int(gdb_fileio_open_mode(0100755, &m), 0, "S_IFREG|0755 accepted");
	is_int(m, 0755, "...type bits dropped");
	is_int(gdb_fileio_open_mode(04755, &m), -EINVAL, "setuid refused");
	is_int(gdb_fileio_open_mode(1ull << 40, &m), -EINVAL, "high bits refused");

	is_int(gdb_fileio_mode_from_host(S_IFREG | 0755), 0100755, "regular file mode");
	is_int(gdb_fileio_mode_from_host(S_IFDIR | 01777), 040777, "directory: sticky dropped");
	is_int(gdb_fileio_mode_from_host(S_IFCHR | 0666), 020666, "char device");
	is_int(gdb_fileio_mode_from_host(S_IFLNK | 0777), 0777, "symlink: no type gdb knows");
	is_int(gdb_fileio_mode_from_host(S_IFREG | 04755), 0100755, "setuid dropped");
}

static void test_errno(void)
{
	static const struct {
		int host, gdb;
	} map[] = {
		{EPERM, 1},	    {ENOENT, 2},   {EINTR, 4},	   {EIO, 5},	 {EBADF, 9},
		{EACCES, 13},	    {EFAULT, 14},  {EBUSY, 16},	   {EEXIST, 17}, {ENODEV, 19},
		{ENOTDIR, 20},	    {EISDIR, 21},  {EINVAL, 22},   {ENFILE, 23}, {EMFILE, 24},
		{EFBIG, 27},	    {ENOSPC, 28},  {ESPIPE, 29},   {EROFS, 30},	 {ENOSYS, 88},
		{ENAMETOOLONG, 91}, {ELOOP, 9999}, {EAGAIN, 9999}, {0, 9999},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		is_int(gdb_fileio_errno(map[i].host), map[i].gdb, "errno %d -> %d", map[i].host,
		       map[i].gdb);
}

static void test_stat(void)
{
	struct stat st;
	uint8_t got[GDB_FILEIO_STAT_SIZE];
	static const uint8_t want[GDB_FILEIO_STAT_SIZE] = {
		0x00, 0x00, 0xfe, 0x01,				/* st_dev */
		0x89, 0xab, 0xcd, 0xef,				/* st_ino, low 32 bits */
		0x00, 0x00, 0x81, 0xed,				/* st_mode 0100755 */
		0x00, 0x00, 0x00, 0x02,				/* st_nlink */
		0x00, 0x00, 0x03, 0xe8,				/* st_uid */
		0x00, 0x00, 0x03, 0xe9,				/* st_gid */
		0x00, 0x00, 0x00, 0x00,				/* st_rdev */
		0x00, 0x00, 0x00, 0x01, 0x23, 0x45, 0x67, 0x89, /* st_size */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, /* st_blksize */
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x28, /* st_blocks */
		0x65, 0x00, 0x00, 0x01,				/* st_atime */
		0x65, 0x00, 0x00, 0x02,				/* st_mtime */
		0x65, 0x00, 0x00, 0x03,				/* st_ctime */
	};

	memset(&st, 0, sizeof(st));
	st.st_dev = 0xfe01;
	st.st_ino = 0x1234567789abcdefull;
	st.st_mode = S_IFREG | 0755;
	st.st_nlink = 2;
	st.st_uid = 1000;
	st.st_gid = 1001;
	st.st_size = 0x123456789;
	st.st_blksize = 4096;
	st.st_blocks = 40;
	st.st_atime = 0x65000001;
	st.st_mtime = 0x65000002;
	st.st_ctime = 0x65000003;
	gdb_fileio_encode_stat(&st, got);
	is_mem(got, sizeof(got), want, sizeof(want), "struct stat: 64 big-endian bytes");
}

static void test_parse(void)
{
	const char *s, *e;
	int64_t v;
	char path[8];

	s = "1f,";
	is_int(gdb_fileio_parse_int(&s, s + 3, &v), 0, "parse 1f");
	is_int(v, 0x1f, "1f = 31");
	is_int(*s, ',', "stops at the comma");
	s = "-1";
	gdb_fileio_parse_int(&s, s + 2, &v);
	is_int(v, -1, "explicit minus sign");
	s = "7fffffffffffffff";
	is_int(gdb_fileio_parse_int(&s, s + 16, &v), 0, "INT64_MAX");
	s = "8000000000000000";
	is_int(gdb_fileio_parse_int(&s, s + 16, &v), -EINVAL, "INT64_MAX + 1 refused");
	s = "-8000000000000000";
	is_int(gdb_fileio_parse_int(&s, s + 17, &v), 0, "INT64_MIN");
	ok(v == INT64_MIN, "...value");
	s = "1ffffffffffffffff";
	is_int(gdb_fileio_parse_int(&s, s + 17, &v), -EINVAL, "beyond 64 bits refused");
	s = "-";
	e = s + 1;
	is_int(gdb_fileio_parse_int(&s, e, &v), -EINVAL, "lone minus refused");
	s = ",";
	is_int(gdb_fileio_parse_int(&s, s + 1, &v), -EINVAL, "no digits refused");

	is_int(gdb_fileio_decode_path("2f61", 4, path, sizeof(path)), 0, "path /a");
	is_str(path, "/a", "path decoded");
	is_int(gdb_fileio_decode_path("2f6100", 6, path, sizeof(path)), -EINVAL, "NUL refused");
	is_int(gdb_fileio_decode_path("2f6", 3, path, sizeof(path)), -EINVAL, "odd length");
	is_int(gdb_fileio_decode_path("2g", 2, path, sizeof(path)), -EINVAL, "bad digit");
	is_int(gdb_fileio_decode_path("", 0, path, sizeof(path)), -ENOENT, "empty name");
	is_int(gdb_fileio_decode_path("61616161616161", 14, path, sizeof(path)), 0, "7 bytes fit");
	is_int(gdb_fileio_decode_path("6161616161616161", 16, path, sizeof(path)), -ENAMETOOLONG,
	       "8 bytes + NUL do not fit in 8");
}

static void test_fit(void)
{
	const uint8_t d[] = "ab#$}*c";

	is_int(gdb_fileio_fit_escaped(d, 7, 100), 7, "all fit");
	is_int(gdb_fileio_fit_escaped(d, 7, 11), 7, "exactly: 3 plain + 4 escaped");
	is_int(gdb_fileio_fit_escaped(d, 7, 10), 6, "one byte short: last plain byte out");
	is_int(gdb_fileio_fit_escaped(d, 7, 3), 2, "an escaped byte never split");
	is_int(gdb_fileio_fit_escaped(d, 7, 0), 0, "no room");
}

int main(void)
{
	test_flags();
	test_errno();
	test_stat();
	test_parse();
	test_fit();
	return done_testing();
}
