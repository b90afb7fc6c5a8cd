/*
 * agent_parse: the conditions and commands at the end of a Z packet, and
 * the two things done with them at a breakpoint hit (see agent.h).
 *
 * gdb writes the expressions of one list back to back, with no separator
 * ("X12,...X12,..."), and starts the command list with "cmds:<persist>,".
 * The tail is read twice: once to check its shape and count expressions
 * and bytes, once to decode into a single allocation, so that a
 * breakpoint's whole list is one pointer to keep and one free().
 */
#include "agent.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../rsp/rsp.h"

/* Parse state; exprs is NULL in the counting pass. */
struct agent_scan {
	const char *p, *end;
	size_t nconds, ncmds, nbytes;
	bool has_cmds, persist;
	struct agent_expr *exprs; /* conds first, then cmds */
	size_t conds_total;	  /* nconds of the counting pass */
	uint8_t *bytes;		  /* decoded code, nbytes used */
};

/* One X<hexlen>,<hex> expression at s->p. */
static int agent_scan_expr(struct agent_scan *s, bool cmd)
{
	struct agent_expr *e;
	uint64_t n;
	uint8_t *code;
	int rc;

	s->p++; /* 'X' */
	if (rsp_parse_hex(&s->p, s->end, &n) < 0 || n == 0 || n > AGENT_CODE_MAX)
		return -EINVAL;
	if (s->p == s->end || *s->p != ',')
		return -EINVAL;
	s->p++;
	if ((size_t)(s->end - s->p) / 2 < n)
		return -EINVAL;
	if (s->nconds + s->ncmds >= AGENT_EXPRS_MAX)
		return -E2BIG;
	if (s->exprs) {
		code = s->bytes + s->nbytes;
		if (rsp_hex_decode(s->p, (size_t)(s->end - s->p), code, (size_t)n) < 0)
			return -EINVAL;
		rc = agent_check(code, (size_t)n);
		if (rc < 0)
			return rc;
		e = cmd ? &s->exprs[s->conds_total + s->ncmds] : &s->exprs[s->nconds];
		e->code = code;
		e->len = (size_t)n;
	}
	s->p += 2 * n;
	s->nbytes += (size_t)n;
	if (cmd)
		s->ncmds++;
	else
		s->nconds++;
	return 0;
}

/* A run of one or more expressions. */
static int agent_scan_run(struct agent_scan *s, bool cmd)
{
	int rc;

	if (s->p == s->end || *s->p != 'X')
		return -EINVAL;
	while (s->p < s->end && *s->p == 'X') {
		rc = agent_scan_expr(s, cmd);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* The whole tail: ;item;item... with the command list, if any, last. */
static int agent_scan(struct agent_scan *s)
{
	static const char cmds[] = "cmds:";
	const size_t ncmds = sizeof(cmds) - 1;
	int rc;

	while (s->p < s->end) {
		if (*s->p++ != ';' || s->has_cmds)
			return -EINVAL;
		if ((size_t)(s->end - s->p) > ncmds && !memcmp(s->p, cmds, ncmds)) {
			s->p += ncmds;
			if (s->end - s->p < 2 || (s->p[0] != '0' && s->p[0] != '1') ||
			    s->p[1] != ',')
				return -EINVAL;
			s->persist = s->p[0] == '1';
			s->has_cmds = true;
			s->p += 2;
			rc = agent_scan_run(s, true);
		} else {
			rc = agent_scan_run(s, false);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* See agent.h. */
int agent_parse_conditions(const char *tail, size_t len, struct agent_cond_list *out)
{
	struct agent_scan count = {.p = tail, .end = tail + len};
	struct agent_scan fill = {.p = tail, .end = tail + len};
	size_t nexprs;
	int rc;

	memset(out, 0, sizeof(*out));
	if (len == 0)
		return 0;
	rc = agent_scan(&count);
	if (rc < 0)
		return rc;
	nexprs = count.nconds + count.ncmds;
	fill.exprs = malloc(nexprs * sizeof(struct agent_expr) + count.nbytes);
	if (!fill.exprs)
		return -ENOMEM;
	fill.conds_total = count.nconds;
	fill.bytes = (uint8_t *)(fill.exprs + nexprs);
	rc = agent_scan(&fill);
	if (rc < 0) {
		free(fill.exprs);
		return rc;
	}
	out->mem = fill.exprs;
	out->conds = count.nconds ? fill.exprs : NULL;
	out->nconds = count.nconds;
	out->cmds = count.ncmds ? fill.exprs + count.nconds : NULL;
	out->ncmds = count.ncmds;
	out->cmds_persist = count.persist;
	return 0;
}

/* See agent.h. */
void agent_cond_list_free(struct agent_cond_list *l)
{
	if (!l)
		return;
	free(l->mem);
	memset(l, 0, sizeof(*l));
}

/* See agent.h. */
bool agent_conds_hold(const struct agent_cond_list *l, const struct agent_env *env)
{
	if (!l || l->nconds == 0)
		return true;
	for (size_t i = 0; i < l->nconds; i++) {
		int64_t v = 0;

		if (agent_eval(l->conds[i].code, l->conds[i].len, env, &v) < 0 || v != 0)
			return true;
	}
	return false;
}

/* See agent.h. */
int agent_run_cmds(const struct agent_cond_list *l, const struct agent_env *env)
{
	for (size_t i = 0; l && i < l->ncmds; i++) {
		int rc = agent_eval(l->cmds[i].code, l->cmds[i].len, env, NULL);

		if (rc < 0)
			return rc;
	}
	return 0;
}
