/*
 * buf: a growable byte buffer (see buf.h).
 */
#include "buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void buf_reserve(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	size_t cap = b->cap ? b->cap : 64;

	if (need <= b->cap)
		return;
	while (cap < need)
		cap *= 2;
	b->data = realloc(b->data, cap);
	if (!b->data)
		abort();
	b->cap = cap;
}

void buf_append(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_putc(struct buf *b, char c)
{
	buf_append(b, &c, 1);
}

void buf_puts(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void buf_hex(struct buf *b, const void *p, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *s = p;
	char *d;

	buf_reserve(b, 2 * n);
	d = b->data + b->len;
	for (size_t i = 0; i < n; i++) {
		*d++ = digits[s[i] >> 4];
		*d++ = digits[s[i] & 15];
	}
	b->len += 2 * n;
	b->data[b->len] = '\0';
}

void buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

void *array_grow(void *arr, size_t n, size_t *cap, size_t elem)
{
	size_t want = *cap ? 2 * *cap : 8;

	if (n < *cap)
		return arr;
	if (want > SIZE_MAX / elem)
		abort();
	arr = realloc(arr, want * elem);
	if (!arr)
		abort();
	*cap = want;
	return arr;
}
