/*
 * trc_wire_fuzz.c: libFuzzer harness for what travels between ustrace and
 * the daemon when ustrace joins a process utraced holds: the trace's
 * options (src/strace/trc_wire.c, decoded by the daemon from
 * Qutraced.trace) and the trace records streamed back (trc_stream.c,
 * decoded by ustrace from %utraced.out notifications).
 *
 * The input is "OPTIONS\nRECORDS": the options are decoded as the daemon
 * does; when they parse, encoding them again must give text that decodes
 * to the same options. The records then go, in pieces of changing sizes,
 * into a stream decoder feeding a trc_out made with those options (the
 * defaults when they did not parse), as in ustrace; the text it writes is
 * thrown away.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strace/trc.h"
#include "strace/trc_stream.h"
#include "strace/trc_wire.h"
#include "fuzz_check.h"

static void discard(void *ctx, const char *s, size_t n)
{
	size_t *total = ctx;

	(void)s;
	*total += n;
}

/* Decode the options; on success they must survive an encode and a decode. */
static void options(const char *s, size_t len, struct trc_opts *o)
{
	static struct trc_wire w, back;
	static char text[TRC_WIRE_MAX];
	int n;

	if (trc_wire_decode(&w, s, len) < 0) {
		trc_opts_init(o);
		return;
	}
	n = trc_wire_encode(&w, text, sizeof(text));
	CHECK(n > 0 && (size_t)n < sizeof(text) && !strpbrk(text, "$#}*%"));
	CHECK(trc_wire_decode(&back, text, (size_t)n) == 0);
	CHECK(!memcmp(&w.o, &back.o, sizeof(w.o)) && w.follow == back.follow);
	*o = w.o;
}

static void records(const char *s, size_t len, const struct trc_opts *o)
{
	static const size_t sizes[] = {1, 7, 64, 3, 4096};
	struct trc_stream_rx *rx = trc_stream_rx_new();
	size_t total = 0, i = 0;
	struct trc_out *out = trc_out_new(o, discard, &total);
	struct trc_sink to = trc_out_sink(out);
	int rc, prev = 0;

	while (len) {
		size_t n = sizes[i++ % (sizeof(sizes) / sizeof(sizes[0]))];

		if (n > len)
			n = len;
		rc = trc_stream_feed(rx, s, n, &to);
		CHECK(rc == 0 || rc == -1);
		CHECK(prev == 0 || rc < 0); /* once refused, refused for good */
		prev = rc;
		s += n;
		len -= n;
	}
	trc_stream_end(rx, &to);
	trc_out_flush_pending(out, " <detached ...>");
	trc_out_summary(out);
	trc_out_free(out);
	trc_stream_rx_free(rx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct trc_opts o;
	const char *s = (const char *)data;
	const char *nl = memchr(s, '\n', size);
	size_t olen = nl ? (size_t)(nl - s) : size;

	options(s, olen, &o);
	if (nl)
		records(nl + 1, size - olen - 1, &o);
	return 0;
}
