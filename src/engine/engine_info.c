/*
 * engine_info.c: read-only views of the engines on a process, for the
 * listings that tell a user who is attached and what each one holds (the
 * FUSE `engines` file). Nothing here changes state or calls ptrace: it
 * walks the structures the rest of the engine maintains.
 */
#include "engine_int.h"

static struct uproc *find_proc(struct tracer *t, pid_t pid)
{
	for (struct uproc *p = t->procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	return NULL;
}

static struct engine *find_engine(struct tracer *t, pid_t pid, int slot)
{
	struct uproc *p = find_proc(t, pid);

	if (!p)
		return NULL;
	for_each_engine(p, e)
		if (e->slot == slot)
			return e;
	return NULL;
}

static size_t count_bps(struct engine *e)
{
	size_t n = 0;

	for (struct swbp *bp = e->p->bps; bp; bp = bp->next)
		n += !!(bp->owners & ENGINE_BIT(e));
	for (struct hwbp *h = e->hw; h; h = h->next)
		n++;
	return n;
}

static void fill_info(struct engine *e, struct engine_info *out)
{
	*out = (struct engine_info){
		.slot = e->slot,
		.name = e->client.name,
		.peer_pid = e->client.peer_pid,
		.peer_uid = e->client.peer_uid,
		.stopped = e->stopped,
		.observer = e->observer,
		.dead = e->dead,
		.nbps = count_bps(e),
		.catch_syscalls = e->catch_sys.on,
		.catch_all = e->catch_sys.all,
	};
	for_each_thread(e->p, th)
		out->nheld += !!(th->hold_mask & ENGINE_BIT(e));
	for (int sig = 1; sig < NSIG; sig++)
		out->npass += e->pass[sig];
}

/* See engine.h. Oldest engine first, the order users expect in a listing. */
size_t engine_info_list(struct tracer *t, pid_t pid, struct engine_info *out, size_t max)
{
	struct uproc *p = find_proc(t, pid);
	size_t n = 0;

	if (!p)
		return 0;
	for (int slot = 0; slot < UPROC_MAX_ENGINES; slot++) {
		for_each_engine(p, e) {
			if (e->slot != slot)
				continue;
			if (n < max)
				fill_info(e, &out[n]);
			n++;
		}
	}
	return n;
}

/* See engine.h. */
size_t engine_info_bps(struct tracer *t, pid_t pid, int slot, struct engine_info_bp *out,
		       size_t max)
{
	struct engine *e = find_engine(t, pid, slot);
	size_t n = 0;

	if (!e)
		return 0;
	for (struct swbp *bp = e->p->bps; bp; bp = bp->next) {
		if (!(bp->owners & ENGINE_BIT(e)))
			continue;
		if (n < max)
			out[n] = (struct engine_info_bp){.type = ENGINE_BP_SW, .addr = bp->addr};
		n++;
	}
	for (struct hwbp *h = e->hw; h; h = h->next) {
		if (n < max)
			out[n] = (struct engine_info_bp){
				.type = h->type, .addr = h->addr, .len = h->len};
		n++;
	}
	return n;
}

/* See engine.h. */
size_t engine_info_syscalls(struct tracer *t, pid_t pid, int slot, long *out, size_t max)
{
	struct engine *e = find_engine(t, pid, slot);
	size_t n = 0;

	if (!e || !e->catch_sys.on || e->catch_sys.all)
		return 0;
	for (long nr = 0; nr < SYSSET_BITS; nr++) {
		if (!((e->catch_sys.bits[nr / 64] >> (nr % 64)) & 1))
			continue;
		if (n < max)
			out[n] = nr;
		n++;
	}
	return n;
}
