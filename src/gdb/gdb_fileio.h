/*
 * gdb_fileio: the pure half of gdb's Host I/O (vFile) protocol.
 *
 * gdb describes files with its own fixed constants (the "File-I/O"
 * representation in the Remote Protocol appendix of the GDB manual): open
 * flags, mode bits, errno numbers and a 64-byte big-endian struct stat,
 * all independent of the host. The conversions live here, away from the
 * system calls in gdb_vfile.c, so that unit tests can check them byte for
 * byte.
 */
#ifndef UTRACED_GDB_FILEIO_H
#define UTRACED_GDB_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Open flags, as gdb sends them in vFile:open. */
#define GDB_FILEIO_O_RDONLY 0x0
#define GDB_FILEIO_O_WRONLY 0x1
#define GDB_FILEIO_O_RDWR   0x2
#define GDB_FILEIO_O_APPEND 0x8
#define GDB_FILEIO_O_CREAT  0x200
#define GDB_FILEIO_O_TRUNC  0x400
#define GDB_FILEIO_O_EXCL   0x800

/* Mode bits: the file types gdb knows, and the permission bits. */
#define GDB_FILEIO_S_IFREG 0100000
#define GDB_FILEIO_S_IFDIR 040000
#define GDB_FILEIO_S_IFCHR 020000
#define GDB_FILEIO_S_PERM  0777

/* errno values (decimal, as in the manual's "Errno Values"). */
#define GDB_FILEIO_EPERM	1
#define GDB_FILEIO_ENOENT	2
#define GDB_FILEIO_EINTR	4
#define GDB_FILEIO_EIO		5
#define GDB_FILEIO_EBADF	9
#define GDB_FILEIO_EACCES	13
#define GDB_FILEIO_EFAULT	14
#define GDB_FILEIO_EBUSY	16
#define GDB_FILEIO_EEXIST	17
#define GDB_FILEIO_ENODEV	19
#define GDB_FILEIO_ENOTDIR	20
#define GDB_FILEIO_EISDIR	21
#define GDB_FILEIO_EINVAL	22
#define GDB_FILEIO_ENFILE	23
#define GDB_FILEIO_EMFILE	24
#define GDB_FILEIO_EFBIG	27
#define GDB_FILEIO_ENOSPC	28
#define GDB_FILEIO_ESPIPE	29
#define GDB_FILEIO_EROFS	30
#define GDB_FILEIO_ENOSYS	88
#define GDB_FILEIO_ENAMETOOLONG 91
#define GDB_FILEIO_EUNKNOWN	9999

/* Size of gdb's struct stat on the wire. */
#define GDB_FILEIO_STAT_SIZE 64

/*
 * gdb open flags to host flags (access mode, O_APPEND, O_CREAT, O_TRUNC,
 * O_EXCL only). Returns 0, or -EINVAL for unknown bits or an access mode
 * of 3.
 */
int gdb_fileio_open_flags(uint64_t gflags, int *host_flags);
/* gdb mode to a host creation mode (permission bits); -EINVAL for unknown bits. */
int gdb_fileio_open_mode(uint64_t gmode, mode_t *host_mode);
/* Host st_mode to gdb's: regular/directory/char-device type bits plus permissions. */
uint32_t gdb_fileio_mode_from_host(mode_t m);
/* Host errno (positive) to gdb's number; EUNKNOWN for anything gdb lacks. */
int gdb_fileio_errno(int host_errno);
/* Encode st as gdb's 64-byte struct stat (big-endian; wider values truncated). */
void gdb_fileio_encode_stat(const struct stat *st, uint8_t out[GDB_FILEIO_STAT_SIZE]);

/*
 * Parse a Host I/O integer at *p: hex digits with an optional leading '-'.
 * Returns 0 and advances *p, or -EINVAL (no digits, or beyond int64_t).
 */
int gdb_fileio_parse_int(const char **p, const char *end, int64_t *out);
/*
 * Decode a hex-encoded path name of hexlen digits into out[outsz] (NUL
 * terminated). Returns 0; -EINVAL for bad hex, an odd length or an
 * embedded NUL; -ENOENT for an empty name; -ENAMETOOLONG if it does not fit.
 */
int gdb_fileio_decode_path(const char *hex, size_t hexlen, char *out, size_t outsz);
/*
 * How many leading bytes of data[0..n) fit in budget bytes once the RSP
 * codec has escaped them ('#', '$', '}' and '*' take two bytes each).
 */
size_t gdb_fileio_fit_escaped(const uint8_t *data, size_t n, size_t budget);

#endif
