/*
 * tdesc_text.h: a target description's text written once into a fixed
 * buffer (each CPU's *_tdesc.c): an appender that marks an overflow
 * instead of writing past the end, so that a description too long for
 * its buffer is refused as a whole, never cut.
 */
#ifndef UTRACED_TDESC_TEXT_H
#define UTRACED_TDESC_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct tdesc_text {
	char *buf;
	size_t len, cap;
	bool overflow;
};

static inline void tdesc_add(struct tdesc_text *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static inline void tdesc_add(struct tdesc_text *x, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (x->overflow)
		return;
	va_start(ap, fmt);
	n = vsnprintf(x->buf + x->len, x->cap - x->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= x->cap - x->len)
		x->overflow = true;
	else
		x->len += (size_t)n;
}

#endif
