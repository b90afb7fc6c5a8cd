/*
 * patch_out.c: agent-style dprintf output, from the traced process to
 * the engines.
 *
 * The in-process agent records each printf of a patched breakpoint in the
 * ring of the thread that hit it (struct agent_out_region, in the
 * process's memory: see agent_inproc.h); nothing stops. utraced empties
 * the rings at every stop of the process (so a line recorded before a
 * stop is printed before anything that stop causes, the commands utraced
 * runs itself at a trap included), on a timer while the process runs, and
 * before the region goes; at an exec, after it went with the old address
 * space, from utraced's own mapping of it (a memfd's shared memory: the
 * records published just before the exec are not lost). Each record goes to the engine that owns
 * the breakpoint, which formats it with the command it gave (bp_printed). The region is the
 * program's memory: a record that does not parse ends that ring's batch, never more.
 */
#include "engine_int.h"
#include "../agent/agent.h"
#include "../agent/agent_inproc.h"

#include <stddef.h>
#include <string.h>
#include <sys/mman.h>

#define DRAIN_EVERY_MS 20
/* ... or sooner while the rings fill fast (fast tracepoints in a hot loop): 1 ms */
#define DRAIN_BUSY_MS 1
#define RING_BUSY     (AGENT_OUT_RING / 16)

/*
 * Whose records are those of bp: the engine whose program there has
 * commands (a dprintf's printf) or is a tracepoint's. (Not cond_owner: a
 * second engine at the address may have made the agent's program go
 * while records of the first are still in the rings.)
 */
static uint64_t records_owner(const struct swbp *bp, bool trace)
{
	for (const struct bp_prog *g = bp ? bp->progs : NULL; g; g = g->next)
		if (trace ? g->trace_on : g->ncmds != 0)
			return g->owner;
	return 0;
}

/*
 * A fast tracepoint's frame to the engine that owns the tracepoint; what
 * it reserved counts as taken from that engine's buffer space.
 */
static bool deliver_trace(struct uproc *p, const uint8_t *rec, size_t len)
{
	struct agent_trace_record r;
	struct swbp *bp;
	struct engine *e = NULL;

	if (agent_trace_parse(rec, len, &r) < 0)
		return false;
	bp = bp_find(p, r.bp);
	for_each_engine(p, o)
		if (records_owner(bp, true) == ENGINE_BIT(o))
			e = o;
	if (e) {
		e->trace_drained += r.reserved;
		if (e->client.bp_collected)
			e->client.bp_collected(e->client.ctx, e, &r);
	}
	p->xol_stats.trace_frames++;
	return true;
}

/* Hand one record (rec[0..len), its length checked) to its breakpoint's owner. */
static bool deliver(struct uproc *p, const uint8_t *rec, size_t len)
{
	static struct agent_record r;
	struct swbp *bp;
	uint16_t kind;

	memcpy(&kind, rec + offsetof(struct agent_trace_rec, kind), 2);
	if (kind == AGENT_REC_TRACE)
		return deliver_trace(p, rec, len);
	if (agent_record_parse(rec, len, &r) < 0)
		return false;
	bp = bp_find(p, r.bp);
	for_each_engine(p, e)
		if (records_owner(bp, false) == ENGINE_BIT(e) && e->client.bp_printed)
			e->client.bp_printed(e->client.ctx, e, &r);
	p->xol_stats.out_lines++;
	return true;
}

/*
 * n bytes of the output region at off: from the process, or (view) from
 * utraced's own mapping of it, the one left once the process has exec'd.
 */
static bool out_read(struct uproc *p, bool view, uint64_t off, void *buf, size_t n)
{
	if (!view)
		return mem_read_raw(p, p->agent_out + off, buf, n) == (ssize_t)n;
	if (!p->agent_out_view || off > p->agent_out_len || n > p->agent_out_len - off)
		return false;
	memcpy(buf, (const uint8_t *)p->agent_out_view + off, n);
	return true;
}

static void out_write(struct uproc *p, bool view, uint64_t off, const void *buf, size_t n)
{
	if (!view)
		mem_write_raw(p, p->agent_out + off, buf, n);
	else if (p->agent_out_view && off <= p->agent_out_len && n <= p->agent_out_len - off)
		memcpy((uint8_t *)p->agent_out_view + off, buf, n);
}

/* Read avail bytes of ring i from tail on into buf (the ring wraps). */
static bool read_ring(struct uproc *p, bool view, unsigned i, uint64_t tail, uint64_t avail,
		      uint8_t *buf)
{
	uint64_t ring_at = offsetof(struct agent_out_region, ring) + (uint64_t)i * AGENT_OUT_RING;
	uint64_t at = tail & (AGENT_OUT_RING - 1), first = AGENT_OUT_RING - at;

	if (first > avail)
		first = avail;
	return out_read(p, view, ring_at + at, buf, first) &&
	       (first == avail || out_read(p, view, ring_at, buf + first, avail - first));
}

/* Empty ring i, whose slot s was read: its records in order, then tail = head. */
static void drain_ring(struct uproc *p, bool view, unsigned i, const struct agent_out_slot *s)
{
	static uint8_t buf[AGENT_OUT_RING];
	uint64_t avail = s->head - s->tail;
	size_t off = 0;

	if (avail <= AGENT_OUT_RING && !(avail & 7) && read_ring(p, view, i, s->tail, avail, buf)) {
		while (avail - off >= sizeof(struct agent_out_rec)) {
			uint32_t len;

			memcpy(&len, buf + off, 4);
			if (len < sizeof(struct agent_out_rec) || len > avail - off || (len & 7) ||
			    !deliver(p, buf + off, len))
				break;
			off += len;
		}
	}
	if (off != avail)
		p->xol_stats.out_lost++;
	out_write(p, view, i * sizeof(*s) + offsetof(struct agent_out_slot, tail), &s->head, 8);
}

bool patch_out_busy(struct uproc *p, uint64_t engines)
{
	for_each_engine(p, e)
		if ((engines & ENGINE_BIT(e)) && e->client.out_busy &&
		    e->client.out_busy(e->client.ctx, e))
			return true;
	return false;
}

/*
 * The threads that waited at their breakpoints for a client's output to
 * drain go again once nobody is backed up; true if some still wait.
 */
static bool out_release(struct uproc *p)
{
	bool waiting = false;

	for_each_thread(p, th)
		waiting |= th->out_wait;
	if (!waiting)
		return false;
	if (patch_out_busy(p, ~0ULL))
		return true;
	for_each_thread(p, th)
		th->out_wait = false;
	sched_update(p);
	return false;
}

/* Empty p's rings; true if one held more than RING_BUSY bytes. */
static bool drain(struct uproc *p, bool view)
{
	struct agent_out_slot slots[AGENT_OUT_SLOTS];
	bool any = false, busy = false;

	if (!p->agent_out || p->exited || !out_read(p, view, 0, slots, sizeof(slots)))
		return false;
	for (unsigned i = 0; i < AGENT_OUT_SLOTS; i++) {
		if (slots[i].head == slots[i].tail)
			continue;
		busy |= slots[i].head - slots[i].tail > RING_BUSY;
		drain_ring(p, view, i, &slots[i]);
		any = true;
	}
	for_each_engine(p, e) { /* the batch is over */
		if (any && e->client.bp_printed)
			e->client.bp_printed(e->client.ctx, e, NULL);
		if (any && e->client.bp_collected)
			e->client.bp_collected(e->client.ctx, e, NULL);
	}
	return busy;
}

void patch_out_view(struct uproc *p, int fd, size_t len)
{
	void *v = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	patch_out_view_drop(p);
	if (v == MAP_FAILED)
		return;
	p->agent_out_view = v;
	p->agent_out_len = len;
}

void patch_out_view_drop(struct uproc *p)
{
	if (p->agent_out_view)
		munmap(p->agent_out_view, p->agent_out_len);
	p->agent_out_view = NULL;
	p->agent_out_len = 0;
}

void patch_drain(struct uproc *p)
{
	drain(p, false);
}

void patch_drain_exec(struct uproc *p)
{
	drain(p, true);
}

int patch_out_tick(struct tracer *t)
{
	long long now = tracer_now_ms();
	bool any = false;

	for (struct uproc *p = t->procs; p; p = p->next)
		any |= p->agent_out != 0;
	if (!any)
		return -1;
	if (now >= t->drain_at) {
		bool busy = false;

		/* (a client that is behind: its lines wait in the rings, in order) */
		for (struct uproc *p = t->procs; p; p = p->next) {
			if (out_release(p) || patch_out_busy(p, ~0ULL))
				busy = true;
			else
				busy |= drain(p, false);
		}
		t->drain_at = now + (busy ? DRAIN_BUSY_MS : DRAIN_EVERY_MS);
	}
	return (int)(t->drain_at - now);
}
