/*
 * trc_count.h: per-syscall call, error and time counts for -c and -C.
 *
 * Private to src/strace/. The table is printed in strace's layout: sorted
 * by time spent, then by syscall number; one table per personality, the
 * i386 one (if any) after a "System call usage summary for 32 bit mode:"
 * heading, as strace does.
 */
#ifndef UTRACED_TRC_COUNT_H
#define UTRACED_TRC_COUNT_H

#include <stdbool.h>
#include <time.h>

#include "../util/buf.h"
#include "trc.h"

struct trc_counts;

struct trc_counts *trc_counts_new(void);
void trc_counts_free(struct trc_counts *k);
/* One call of nr, which took ns (system CPU time, or latency with -w). */
void trc_counts_add(struct trc_counts *k, enum trc_pers p, long nr, bool error, long long ns);
void trc_counts_print(const struct trc_counts *k, struct buf *b);

#endif
