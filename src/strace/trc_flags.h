/*
 * trc_flags.h: constant tables that several decoder files share.
 *
 * Private to src/strace/. Each table is in the order strace prints the
 * names in (a combined flag such as O_SYNC or O_TMPFILE must come before
 * the single bits it contains).
 */
#ifndef UTRACED_TRC_FLAGS_H
#define UTRACED_TRC_FLAGS_H

#include "trc_int.h"

extern const struct xlat trc_at_flags[];
/* O_RDONLY|O_CLOEXEC...: the access mode, then the other flags. */
void tp_open_flags(struct trc_call *c, uint64_t flags);
/* Print into c->auxbuf instead of the line, and make it c->auxstr. */
void tp_to_auxstr(struct trc_call *c, const char *prefix, const struct xlat *x, uint64_t val);

#endif
