/*
 * ustrace_inject.c: -e inject=SET:... and -e fault=SET:..., strace's
 * syscall tampering, for the processes ustrace traces itself.
 *
 * A rule gives the syscalls of SET an error (error=ENOENT, or a number),
 * a return value (retval=N) and/or a signal (signal=USR1), on the calls
 * that when=FIRST[..LAST][+[STEP]] selects (every call by default; fault=
 * is inject= with error=ENOSYS unless told otherwise). At the chosen
 * call's entry the syscall number is made -1, so that the kernel skips
 * it; at its exit the result is set and the line says "(INJECTED)"; the
 * signal is given as the thread resumes from that exit, as strace gives
 * it (si_code SI_KERNEL). Parsing is pure; applying goes through the
 * engine (registers, engine_observe_signal).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/engine.h"
#include "ustrace.h"

static int errno_nr(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s && !*end)
		return v > 0 && v < 4096 ? (int)v : -1;
	for (int e = 1; e < 4096; e++) {
		const char *name = trc_errno_name(e);

		if (name && !strcmp(name, s))
			return e;
	}
	return -1;
}

/* when=FIRST[..LAST][+[STEP]]: FIRST alone is that call only; "+" goes on to LAST, or for ever */
static int parse_when(struct ust_inject_rule *r, const char *s)
{
	bool have_last = false;
	char *end;

	r->first = (unsigned)strtoul(s, &end, 10);
	if (end == s || r->first < 1 || r->first > 65535)
		return -1;
	r->last = r->first;
	r->step = 0;
	if (!strncmp(end, "..", 2)) {
		s = end + 2;
		r->last = (unsigned)strtoul(s, &end, 10);
		if (end == s || r->last < r->first || r->last > 65535)
			return -1;
		have_last = true;
	}
	if (*end == '+') {
		s = end + 1;
		r->step = 1;
		if (*s) {
			r->step = (unsigned)strtoul(s, &end, 10);
			if (end == s || !r->step || r->step > 65535)
				return -1;
		} else {
			end = (char *)s;
		}
		if (!have_last)
			r->last = 65535;
	}
	return *end ? -1 : 0;
}

static int parse_opt(struct ust_inject_rule *r, char *opt)
{
	char *eq = strchr(opt, '=');
	char *end;

	if (!eq)
		return -1;
	*eq++ = '\0';
	if (!strcmp(opt, "error")) {
		r->error = errno_nr(eq);
		return r->error > 0 ? 0 : -1;
	}
	if (!strcmp(opt, "retval")) {
		r->retval = strtoll(eq, &end, 0);
		r->has_retval = true;
		return *eq && !*end ? 0 : -1;
	}
	if (!strcmp(opt, "signal")) {
		r->signal = trc_signal_nr(eq);
		return r->signal > 0 ? 0 : -1;
	}
	if (!strcmp(opt, "when"))
		return parse_when(r, eq);
	return -1;
}

int ust_inject_parse(struct ust_inject *inj, const char *spec, bool fault, char *err, size_t errlen)
{
	struct ust_inject_rule r = {.first = 1, .last = 65535, .step = 1};
	struct trc_set set[TRC_NPERS];
	char *copy = strdup(spec), *opts, *opt, *save = NULL;
	int rc = 0;

	if (!copy)
		abort();
	opts = strchr(copy, ':');
	if (opts)
		*opts++ = '\0';
	for (opt = opts ? strtok_r(opts, ":", &save) : NULL; opt && !rc;
	     opt = strtok_r(NULL, ":", &save))
		rc = parse_opt(&r, opt);
	if (!rc && fault && !r.error)
		r.error = ENOSYS;
	if (rc || (!r.error && !r.has_retval && !r.signal)) {
		snprintf(err, errlen, "invalid %s '%s'",
			 fault ? "fault argument" : "inject argument", spec);
		free(copy);
		return -1;
	}
	if (inj->nrules == UST_INJECT_MAX) {
		snprintf(err, errlen, "too many -e inject/fault rules (at most %d)",
			 UST_INJECT_MAX);
		free(copy);
		return -1;
	}
	rc = trc_parse_set(set, false, copy, err, errlen);
	free(copy);
	if (rc)
		return -1;
	inj->rules[inj->nrules++] = r;
	for (int p = 0; p < TRC_NPERS; p++) /* a later rule takes over a syscall */
		for (unsigned nr = 0; nr < TRC_SET_MAX; nr++)
			if (trc_set_has(&set[p], nr))
				inj->rule[p][nr] = (uint8_t)inj->nrules;
	return 0;
}

/* Whether the n-th call (from 1) is one when= chose. */
static bool chosen(const struct ust_inject_rule *r, unsigned n)
{
	if (n < r->first || n > r->last)
		return false;
	return r->step ? (n - r->first) % r->step == 0 : n == r->first;
}

static struct ust_inject_pending *pending_of(struct ust_inject_state *st, pid_t tid, bool add)
{
	for (size_t i = 0; i < UST_INJECT_THREADS; i++)
		if (st->pending[i].tid == tid)
			return &st->pending[i];
	if (!add)
		return NULL;
	for (size_t i = 0; i < UST_INJECT_THREADS; i++)
		if (!st->pending[i].tid)
			return &st->pending[i];
	return NULL;
}

void ust_inject_entry(const struct ust_inject *inj, struct ust_inject_state *st, struct engine *e,
		      pid_t tid, int pers, long nr)
{
	const struct ust_inject_rule *r;
	struct ust_inject_pending *pd;
	struct arch_regs *regs;
	unsigned n;

	if (nr < 0 || nr >= TRC_SET_MAX || !inj->rule[pers][nr])
		return;
	r = &inj->rules[inj->rule[pers][nr] - 1];
	n = st->count[pers][nr] < 65535 ? ++st->count[pers][nr] : 65535;
	if (!chosen(r, n) || !(pd = pending_of(st, tid, true)))
		return;
	pd->tid = tid;
	pd->rule = r;
	if (!r->error && !r->has_retval)
		return;
	/* no such syscall: the kernel skips it, and the exit is ours to fill in */
	if (engine_regs(e, tid, &regs) == 0)
		engine_regs_store(e, tid, arch_syscall_skip(engine_arch(e), regs));
}

bool ust_inject_exit(struct ust_inject_state *st, struct engine *e, pid_t tid, int64_t *ret)
{
	struct ust_inject_pending *pd = pending_of(st, tid, false);
	const struct ust_inject_rule *r;
	struct arch_regs *regs;
	bool changed = false;

	if (!pd)
		return false;
	r = pd->rule;
	pd->tid = 0;
	if ((r->error || r->has_retval) && engine_regs(e, tid, &regs) == 0) {
		*ret = r->error ? -r->error : r->retval;
		changed = engine_regs_store(e, tid,
					    arch_set_syscall_ret(engine_arch(e), regs, *ret)) == 0;
	}
	if (r->signal)
		engine_observe_signal(e, tid, r->signal);
	return changed;
}
