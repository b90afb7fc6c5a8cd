/*
 * trc_wire.h: a trace's options as text, for an strace core run by someone
 * else.
 *
 * When utraced already holds a process, ustrace does not trace it itself:
 * it asks the daemon (packet Qutraced.trace, src/gdb/gdb_trace.c) to run the
 * strace core with ustrace's options and to stream the text back. This is
 * the form those options travel in: every field of struct trc_opts that
 * changes the output, plus what the daemon needs to know about the client.
 * Printable text with no RSP special characters ("v=3;s=32;...;t64=HEX"),
 * so it goes in a packet as it is; pure, so both sides share it and it is
 * unit-tested (tests/unit/trc_wire_test.c).
 */
#ifndef UTRACED_TRC_WIRE_H
#define UTRACED_TRC_WIRE_H

#include <stdbool.h>
#include <stddef.h>

#include "trc.h"

/* Longest encoding (eleven sets of TRC_SET_MAX bits and -P's paths in hex, and the rest). */
#define TRC_WIRE_MAX 4096

struct trc_wire {
	struct trc_opts o;
	bool follow; /* -f: every thread and fork child, not only the one given */
};

/* The text of w into out[outlen] (NUL-terminated); its length, or -1 if too small. */
int trc_wire_encode(const struct trc_wire *w, char *out, size_t outlen);
/* Parse s[0..len) into w; 0, or -1 on anything unknown or malformed. */
int trc_wire_decode(struct trc_wire *w, const char *s, size_t len);

#endif
