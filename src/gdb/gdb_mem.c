/*
 * gdb_mem.c: memory packets m, M, X.
 *
 * Lengths come from the client and are never trusted: a read is capped to
 * what fits in one reply, a write must carry exactly the bytes it claims.
 */
#include "gdb_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Most bytes one 'm' reply carries (two hex digits each). */
#define MEM_READ_MAX ((RSP_MAX_PACKET - 16) / 2)

int gdb_parse_addr_len(const char **pp, const char *end, uint64_t *addr, uint64_t *len)
{
	const char *q = *pp;

	if (rsp_parse_hex(&q, end, addr) < 0 || q >= end || *q++ != ',')
		return -EINVAL;
	if (rsp_parse_hex(&q, end, len) < 0)
		return -EINVAL;
	*pp = q;
	return 0;
}

int gdb_handle_m(struct gdb_session *s, const char *p, size_t len)
{
	const char *q = p + 1, *end = p + len;
	uint8_t data[MEM_READ_MAX];
	uint64_t addr, n;
	size_t from_frame = 0;
	ssize_t got;
	int err;

	if (gdb_parse_addr_len(&q, end, &addr, &n) < 0 || q != end)
		return -EINVAL;
	if (n > MEM_READ_MAX)
		n = MEM_READ_MAX;
	if (n == 0)
		return 0;
	err = gdb_tp_read_mem(s, addr, data, (size_t)n, &from_frame);
	if (err < 0)
		return err;
	if (err > 0) {
		buf_hex(&s->reply, data, from_frame);
		return 0;
	}
	got = engine_mem_read(s->engine, addr, data, (size_t)n);
	if (got <= 0)
		return got < 0 ? (int)got : -EIO;
	buf_hex(&s->reply, data, (size_t)got);
	return 0;
}

static int write_all(struct gdb_session *s, uint64_t addr, const uint8_t *data, size_t n)
{
	ssize_t put;

	if (s->tframe >= 0) /* a trace frame is history: not written */
		return -EIO;
	put = n ? engine_mem_write(s->engine, addr, data, n) : 0;

	if (put < 0)
		return (int)put;
	if ((size_t)put != n)
		return -EIO;
	buf_puts(&s->reply, "OK");
	return 0;
}

int gdb_handle_M(struct gdb_session *s, const char *p, size_t len)
{
	const char *q = p + 1, *end = p + len;
	uint64_t addr, n;
	uint8_t *data;
	int err;

	if (gdb_parse_addr_len(&q, end, &addr, &n) < 0 || q >= end || *q++ != ':')
		return -EINVAL;
	if ((uint64_t)(end - q) != 2 * n)
		return -EINVAL;
	data = malloc(n ? n : 1);
	if (!data)
		return -ENOMEM;
	err = rsp_hex_decode(q, (size_t)(end - q), data, n) < 0 ? -EINVAL : 0;
	if (!err)
		err = write_all(s, addr, data, n);
	free(data);
	return err;
}

int gdb_handle_X(struct gdb_session *s, const char *p, size_t len)
{
	const char *q = p + 1, *end = p + len;
	uint64_t addr, n;

	if (gdb_parse_addr_len(&q, end, &addr, &n) < 0 || q >= end || *q++ != ':')
		return -EINVAL;
	if ((uint64_t)(end - q) != n)
		return -EINVAL;
	return write_all(s, addr, (const uint8_t *)q, n);
}
