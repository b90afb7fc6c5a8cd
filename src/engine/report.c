/*
 * report.c: the stop reports on their way from the engine's state machine
 * to the clients.
 *
 * A report is never handed to a client from inside the call that made it
 * (a client's callback may resume, detach or free the process it is
 * about): engine_report() keeps it on its engine, one for an all-stop
 * engine, a queue of them for a non-stop one (whose threads stop one by
 * one), and wakes the loop; report_notify_all() then calls each client's
 * on_stop() from the top of the loop.
 */
#include "engine_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A report for e: kept (all-stop) or queued (non-stop), handed out from the loop. */
void engine_report(struct engine *e, const struct engine_stop *st)
{
	if (e->nonstop) {
		nonstop_queue(e, st);
		return;
	}
	if (&e->report != st)
		e->report = *st;
	e->notify = true;
	tracer_wake(e->p->t);
}

/*
 * Queue a report for a non-stop engine. Out of memory aborts, as every
 * growing array (docs/architecture.md, "Out of memory"): a dropped report
 * left its thread held for ever, gdb waiting for a stop that never came.
 */
void nonstop_queue(struct engine *e, const struct engine_stop *st)
{
	e->nsq = array_grow(e->nsq, e->nsq_len, &e->nsq_cap, sizeof(*e->nsq));
	e->nsq[e->nsq_len++] = *st;
	e->notify = true;
	tracer_wake(e->p->t);
}

/* Take the oldest queued report; false when none. */
static bool nonstop_take(struct engine *e, struct engine_stop *st)
{
	if (!e->nsq_len)
		return false;
	*st = e->nsq[0];
	memmove(e->nsq, e->nsq + 1, --e->nsq_len * sizeof(*st));
	return true;
}

/* Hand ready stop reports to their clients. */
void report_notify_all(struct tracer *t)
{
	uint64_t n;
	bool again = true;

	/* (a poll of the event loop that nobody woke: nothing to read, a system call saved per
	 * stop) */
	if (t->notify_pending && read(t->evfd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		perror("utraced: eventfd");
	t->notify_pending = false;
	while (again) {
		again = false;
		for (struct uproc *p = t->procs; p && !again; p = p->next) {
			for_each_engine(p, e) {
				struct engine_stop st;

				if (!e->notify)
					continue;
				if (e->nonstop) {
					if (!nonstop_take(e, &st)) {
						e->notify = false;
						continue;
					}
				} else {
					e->notify = false;
					st = e->report;
				}
				/* the callback may detach engines or free p: rescan */
				e->client.on_stop(e->client.ctx, &st);
				again = true;
				break;
			}
		}
	}
}
