/*
 * buf: a growable byte buffer.
 *
 * Used for packet payloads, outgoing socket data and XML documents. The data
 * is always NUL-terminated (not counted in len) so text users can print it.
 * Allocation failure aborts: a debugging server that cannot allocate a few
 * kilobytes has no sane way to go on.
 */
#ifndef UTRACED_BUF_H
#define UTRACED_BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	char *data;
	size_t len;
	size_t cap;
};

void buf_init(struct buf *b);
void buf_free(struct buf *b);
void buf_reset(struct buf *b);
void buf_reserve(struct buf *b, size_t extra);
void buf_append(struct buf *b, const void *p, size_t n);
void buf_putc(struct buf *b, char c);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append n bytes as 2n lowercase hex digits. */
void buf_hex(struct buf *b, const void *p, size_t n);
/* Drop the first n bytes (n <= len). */
void buf_consume(struct buf *b, size_t n);

/*
 * Room for one more element in a growable array of *cap elements of size
 * elem holding n: doubles it when full. Aborts on failure, as buf does.
 */
void *array_grow(void *arr, size_t n, size_t *cap, size_t elem);

#endif
