/*
 * trc_stream.h: an strace core's output carried across a byte stream
 * (trc_stream.c): utraced's trace sessions encode it, ustrace decodes it
 * into its own struct trc_out, where the lines of every process it traces
 * meet. Pure, no I/O; unit-tested in tests/unit/trc_stream_test.c.
 */
#ifndef UTRACED_TRC_STREAM_H
#define UTRACED_TRC_STREAM_H

#include "../util/buf.h"
#include "trc.h"

/* A sink that appends its records to b; times: lines carry their time (-t). */
struct trc_sink trc_stream_sink(struct buf *b, bool times);

/* The receiving end of one stream. */
struct trc_stream_rx;
struct trc_stream_rx *trc_stream_rx_new(void);
void trc_stream_rx_free(struct trc_stream_rx *rx);
/*
 * The next n bytes (any split): the whole records among them go to to.
 * 0, or -1 once the stream is malformed (then and ever after: nothing
 * more is trusted).
 */
int trc_stream_feed(struct trc_stream_rx *rx, const char *s, size_t n, const struct trc_sink *to);
/* The stream ended: its tasks still announced are gone (to->task). */
void trc_stream_end(struct trc_stream_rx *rx, const struct trc_sink *to);

#endif
