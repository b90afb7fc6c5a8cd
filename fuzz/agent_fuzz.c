/*
 * agent_fuzz.c: libFuzzer harness for gdb's agent expressions (src/agent/):
 * the parser of a Z packet's conditions and commands, the static check
 * and the evaluator, on the fake stopped thread of the unit tests
 * (tests/unit/agent_fake.h: memory regions, registers, a print buffer).
 *
 * The first byte picks what the rest is:
 *   bit 0 clear: the tail of a Z packet, as gdb sends it after
 *                "Z0,addr,kind" (";X3,220027;cmds:0,X..."): parsed, every
 *                expression it yields must pass agent_check(), then the
 *                conditions are evaluated and the commands run;
 *   bit 0 set:   raw bytecode: agent_check(), then agent_eval() both as a
 *                condition (a result wanted) and as a command (none).
 * Bit 1 makes every memory read fail, bit 2 every print, so that the
 * error paths of the callbacks run too. Bit 3 set: the rest is an agent
 * printf record as read from a traced program's ring (agent_record.c),
 * whose strings must lie inside it if it is accepted.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "agent_fake.h"
#include "fuzz_check.h"

static void run_tail(const char *tail, size_t len, const struct agent_env *env)
{
	struct agent_cond_list l;
	int ret = agent_parse_conditions(tail, len, &l);

	if (ret < 0) {
		CHECK(ret == -EINVAL || ret == -E2BIG || ret == -ENOMEM);
		CHECK(!l.conds && !l.cmds && !l.mem && !l.nconds && !l.ncmds);
		return;
	}
	for (size_t i = 0; i < l.nconds; i++)
		CHECK(agent_check(l.conds[i].code, l.conds[i].len) == 0);
	for (size_t i = 0; i < l.ncmds; i++)
		CHECK(agent_check(l.cmds[i].code, l.cmds[i].len) == 0);
	agent_conds_hold(&l, env);
	agent_run_cmds(&l, env);
	agent_cond_list_free(&l);
}

static void run_record(const uint8_t *rec, size_t len)
{
	static struct agent_record r;
	int ret = agent_record_parse(rec, len, &r);

	CHECK(ret == 0 || ret == -EINVAL);
	for (size_t i = 0; ret == 0 && i < r.nstrs; i++)
		CHECK((const uint8_t *)r.strs[i].s >= rec &&
		      (const uint8_t *)r.strs[i].s + r.strs[i].len <= rec + len);
}

static void run_code(const uint8_t *code, size_t len, const struct agent_env *env)
{
	int64_t result;
	int ret;

	ret = agent_check(code, len);
	CHECK(ret == 0 || ret == -EINVAL || ret == -E2BIG);
	ret = agent_eval(code, len, env, &result);
	CHECK(ret <= 0);
	ret = agent_eval(code, len, env, NULL);
	CHECK(ret <= 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fake f;
	struct agent_env env;
	uint8_t mode;

	if (size < 1)
		return 0;
	mode = data[0];
	if (mode & 8) {
		run_record(data + 1, size - 1);
		return 0;
	}
	fake_init(&f, &env);
	if (mode & 2)
		f.mem_rc = -EFAULT;
	if (mode & 4)
		f.print_rc = -EIO;
	if (mode & 1)
		run_code(data + 1, size - 1, &env);
	else
		run_tail((const char *)data + 1, size - 1, &env);
	return 0;
}
