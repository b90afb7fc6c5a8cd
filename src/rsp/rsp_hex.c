/*
 * rsp_hex: hex digit helpers shared by the packet parsers (see rsp.h).
 *
 * Almost every RSP packet carries hex numbers or hex-encoded bytes; keeping
 * the digit rules and the overflow check in one place means each parser
 * rejects the same malformed input the same way.
 */
#include "rsp.h"

#include <errno.h>

int rsp_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rsp_hex_decode(const char *s, size_t slen, uint8_t *out, size_t n)
{
	/* Compare with slen / 2 so that a huge n cannot overflow 2 * n. */
	if (slen / 2 < n)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		int hi = rsp_hex_digit(s[2 * i]);
		int lo = rsp_hex_digit(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

int rsp_parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d;

	for (; s < end && (d = rsp_hex_digit(*s)) >= 0; s++) {
		/* Leading zeros keep v at 0, so only significant digits count. */
		if (v >> 60)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	if (s == *p)
		return -EINVAL;
	*out = v;
	*p = s;
	return 0;
}
