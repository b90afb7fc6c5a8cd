/*
 * ep_engines.c: the text of DIR/<pid>/engines (docs/fuse.md), from
 * engine_info.c's read-only views of the engines: one line per engine,
 * who its client is and what it holds.
 */
#include "ep_fuse.h"

#include <inttypes.h>

static const char *bp_kind(enum engine_bp_type type)
{
	switch (type) {
	case ENGINE_BP_HW:
		return "hw:";
	case ENGINE_BP_WRITE:
		return "write:";
	case ENGINE_BP_READ:
		return "read:";
	case ENGINE_BP_ACCESS:
		return "access:";
	default:
		return "";
	}
}

/* " breakpoints=A,hw:B watchpoints=write:C/4" for engine slot. */
static void put_bps(struct tracer *t, pid_t pid, int slot, struct buf *out)
{
	struct engine_info_bp bps[64];
	size_t n = engine_info_bps(t, pid, slot, bps, 64);
	const char *sep;

	if (n > 64)
		n = 64;
	for (int watch = 0; watch < 2; watch++) {
		buf_puts(out, watch ? " watchpoints=" : " breakpoints=");
		sep = "";
		for (size_t i = 0; i < n; i++) {
			bool w = bps[i].type >= ENGINE_BP_WRITE;

			if (w != (bool)watch)
				continue;
			buf_printf(out, "%s%s%#" PRIx64, sep, bp_kind(bps[i].type), bps[i].addr);
			if (w)
				buf_printf(out, "/%d", bps[i].len);
			sep = ",";
		}
		if (!*sep)
			buf_putc(out, '-');
	}
}

static void put_catches(struct tracer *t, pid_t pid, const struct engine_info *e, struct buf *out)
{
	long nrs[128];
	size_t n;

	buf_puts(out, " catch=");
	if (!e->catch_syscalls) {
		buf_putc(out, '-');
		return;
	}
	buf_puts(out, "syscalls:");
	if (e->catch_all) {
		buf_puts(out, "all");
		return;
	}
	n = engine_info_syscalls(t, pid, e->slot, nrs, 128);
	for (size_t i = 0; i < n && i < 128; i++)
		buf_printf(out, "%s%ld", i ? "," : "", nrs[i]);
	if (n > 128)
		buf_puts(out, ",...");
}

/* See ep_fuse.h. */
void ep_engines_text(struct tracer *t, pid_t pid, struct buf *out)
{
	struct engine_info info[64];
	size_t n = engine_info_list(t, pid, info, 64);

	for (size_t i = 0; i < n && i < 64; i++) {
		const struct engine_info *e = &info[i];
		const char *state = e->dead	  ? "exited"
				    : e->observer ? "observing"
				    : e->stopped  ? "stopped"
						  : "running";

		buf_printf(out, "%d endpoint=%s", e->slot, e->name ? e->name : "-");
		if (e->peer_pid)
			buf_printf(out, " client=%d uid=%u", e->peer_pid, (unsigned)e->peer_uid);
		else
			buf_puts(out, " client=- uid=-");
		buf_printf(out, " state=%s", state);
		put_bps(t, pid, e->slot, out);
		put_catches(t, pid, e, out);
		buf_printf(out, " held_threads=%zu passed_signals=%d\n", e->nheld, e->npass);
	}
}
