/*
 * The Z packet tail parser (src/agent/agent_parse.c): the tails gdb 13.1
 * really sent for conditions and agent-style dprintf, what they do against
 * the state gdb saw (agent_fake.h; the texts are what gdbserver printed at
 * that hit), and malformed tails from a hostile client.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent_fake.h"
#include "tap.h"

static struct fake F;
static struct agent_env ENV;

/* Z0 tails as gdb sent them after "Z0,55555555513c,1". */
#define X_EQ_3	 "X12,26000622100222ec16080219162022031327"
#define U_EQ_8	 "X12,26000622100222e81608021922082a201327"
#define DPRINTF1 "X1e,26000622100222ec1608021916202200220034010007783d25645c6e0027"
/* dprintf f,"x=%d u=%u l=%ld s=%s c=%c\n", x, u, l, gstr, ch */
#define DPRINTF5                                                                                   \
	"X65,26000622100222dc1608021716082500005555555580301a26000622100222e01608021a164026000622" \
	"100222e81608021926000622100222ec160802191620220022003405001c783d256420753d2575206c3d25"   \
	"6c6420733d257320633d25635c6e0027"
/* dprintf prog.c:10,"tab\there %%d=%d %5.2s|%-4d|%#x|%lu\n", sink, gstr, x, u, (unsigned long)l */
#define DPRINTF_LINE10                                                                             \
	"X6f,26000622100222e01608021a16402a4026000622100222e81608021926000622100222ec1608021916"   \
	"202500005555555580301a25000055555555803c19162022002200340500267461625c7468657265202525"   \
	"643d25642025352e32737c252d34647c2523787c256c755c6e0027"
#define DPRINTF_A "X1d,26000622100222ec16080219162022002200340100064125645c6e0027"
#define DPRINTF_B "X1b,26000622100222e81608021922002200340100064225645c6e0027"

static int parse(const char *tail, struct agent_cond_list *l)
{
	return agent_parse_conditions(tail, strlen(tail), l);
}

static void test_gdb_tails(void)
{
	struct agent_cond_list l;

	is_int(parse("", &l), 0, "empty tail");
	ok(l.nconds == 0 && l.ncmds == 0 && !l.mem, "...no conditions, no commands");
	ok(agent_conds_hold(&l, &ENV), "...an unconditional breakpoint holds");
	is_int(agent_run_cmds(&l, &ENV), 0, "...no commands to run");

	is_int(parse(";" X_EQ_3, &l), 0, "break f if x == 3");
	is_int(l.nconds, 1, "...one condition");
	is_int(l.conds[0].len, 0x12, "...of 18 bytes");
	is_int(l.conds[0].code[0], 0x26, "...starting with reg");
	is_int(l.conds[0].code[17], 0x27, "...ending with end");
	ok(!l.cmds && l.ncmds == 0, "...no commands");
	ok(agent_conds_hold(&l, &ENV), "...holds at x=3");
	agent_cond_list_free(&l);
	ok(!l.mem && !l.conds && l.nconds == 0, "free zeroes the list");
	agent_cond_list_free(&l);
	agent_cond_list_free(NULL);

	is_int(parse(";" X_EQ_3 U_EQ_8, &l), 0, "two locations: x == 3, u == 8 back to back");
	is_int(l.nconds, 2, "...two conditions");
	ok(agent_conds_hold(&l, &ENV), "...hold at x=3 u=6");
	fake_poke32(&F, FAKE_X, 4);
	fake_poke32(&F, FAKE_U, 8);
	ok(agent_conds_hold(&l, &ENV), "...hold at x=4 u=8 (the second one)");
	fake_poke32(&F, FAKE_X, 5);
	fake_poke32(&F, FAKE_U, 10);
	ok(!agent_conds_hold(&l, &ENV), "...do not hold at x=5 u=10");
	F.mem_rc = -EFAULT;
	ok(agent_conds_hold(&l, &ENV), "...hold when memory cannot be read (gdb decides)");
	F.mem_rc = 0;
	fake_init(&F, &ENV);
	agent_cond_list_free(&l);

	is_int(parse(";" X_EQ_3 ";" U_EQ_8, &l), 0, "conditions separated by ';' (gdbserver too)");
	is_int(l.nconds, 2, "...two conditions");
	agent_cond_list_free(&l);

	is_int(parse(";cmds:1," DPRINTF5, &l), 0, "dprintf with five arguments");
	ok(l.nconds == 0 && l.ncmds == 1 && l.cmds_persist, "...one persistent command");
	ok(agent_conds_hold(&l, &ENV), "...no condition: holds");
	is_int(agent_run_cmds(&l, &ENV), 0, "...runs");
	is_str(F.out, "x=3 u=6 l=-3 s=hello c=d\n", "...prints what gdbserver printed");
	agent_cond_list_free(&l);

	F.outlen = 0;
	is_int(parse(";" X_EQ_3 ";cmds:1," DPRINTF1, &l), 0, "dprintf with a condition");
	ok(l.nconds == 1 && l.ncmds == 1, "...one condition, one command");
	ok(agent_conds_hold(&l, &ENV), "...the condition holds at x=3");
	is_int(agent_run_cmds(&l, &ENV), 0, "...the command runs");
	is_str(F.out, "x=3\n", "...and prints x");
	agent_cond_list_free(&l);

	F.outlen = 0;
	is_int(parse(";cmds:1," DPRINTF_A DPRINTF_B, &l), 0, "two dprintfs at one address");
	is_int(l.ncmds, 2, "...two commands, back to back (gdbserver takes only the first)");
	is_int(agent_run_cmds(&l, &ENV), 0, "...both run");
	is_str(F.out, "A3\nB6\n", "...in order");
	ENV.print = NULL;
	is_int(agent_run_cmds(&l, &ENV), -EOPNOTSUPP, "...not without a print callback");
	ENV.print = fake_print;
	agent_cond_list_free(&l);

	F.outlen = 0;
	is_int(parse(";cmds:0," DPRINTF_LINE10, &l), 0, "dprintf with escapes, widths, %%%%");
	ok(!l.cmds_persist, "...cmds:0 is not persistent");
	is_int(agent_run_cmds(&l, &ENV), 0, "...runs");
	is_str(F.out, "tab\there %d=300    he|3   |0x6|18446744073709551613\n",
	       "...prints like gdbserver");
	agent_cond_list_free(&l);

	is_int(parse(";X3,222C27", &l), 0, "upper-case hex digits");
	agent_cond_list_free(&l);
}

static void test_bad_tails(void)
{
	static const char *const bad[] = {
		"X3,222c27",				 /* no ';' */
		";",					 /* nothing after it */
		";;X3,222c27",				 /* empty item */
		";X3,222c27;",				 /* trailing ';' */
		";X",					 /* no length */
		";X3",					 /* no comma */
		";X3,",					 /* no bytes */
		";X3,222c",				 /* short */
		";X0,",					 /* empty expression */
		";Xg,00",				 /* bad length */
		";X3,222g27",				 /* bad digit */
		";X3,222c27junk",			 /* after the expression */
		";X-3,222c27",				 /* negative */
		";X1ffffffffffffffff,00",		 /* length overflows */
		";X10001,00",				 /* longer than AGENT_CODE_MAX */
		";Xffffffffffffffff,00",		 /* 2 * length overflows */
		";X2,222c",				 /* bytecode that agent_check refuses */
		";X3,213000",				 /* jump past the end */
		";Y3,222c27",				 /* unknown item */
		";cmds:2," DPRINTF1,			 /* persist not 0/1 */
		";cmds:1" DPRINTF1,			 /* no comma */
		";cmds:1,",				 /* no command */
		";cmds:",				 /* nothing */
		";cmds:1," DPRINTF1 ";X3,222c27",	 /* conditions after commands */
		";cmds:1," DPRINTF1 ";cmds:1," DPRINTF1, /* two command lists */
		";X3,222c27 ",				 /* trailing space */
	};
	struct agent_cond_list l;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memset(&l, 0xa5, sizeof(l));
		is_int(parse(bad[i], &l), -EINVAL, "refused: \"%.40s\"", bad[i]);
		ok(!l.mem && !l.conds && !l.cmds && !l.nconds && !l.ncmds,
		   "...and the list is left empty");
	}
	/* len is the limit, not a NUL: an exact-size copy, cut mid-expression. */
	{
		const char *t = ";" X_EQ_3;
		size_t n = strlen(t) - 2;
		char *copy = malloc(n);

		memcpy(copy, t, n);
		is_int(agent_parse_conditions(copy, n, &l), -EINVAL, "len cuts the expression");
		is_int(agent_parse_conditions(t, 5, &l), -EINVAL, "len cuts the header");
		free(copy);
	}
}

static void test_limits(void)
{
	size_t n = AGENT_EXPRS_MAX + 1;
	char *t = malloc(n * 5 + 2);
	struct agent_cond_list l;

	t[0] = ';';
	for (size_t i = 0; i < n; i++)
		memcpy(t + 1 + 5 * i, "X1,27", 5);
	is_int(agent_parse_conditions(t, 1 + 5 * (n - 1), &l), 0, "AGENT_EXPRS_MAX expressions");
	is_int(l.nconds, AGENT_EXPRS_MAX, "...all kept");
	agent_cond_list_free(&l);
	is_int(agent_parse_conditions(t, 1 + 5 * n, &l), -E2BIG, "one more is too many");
	ok(!l.mem, "...nothing kept");
	free(t);
}

/* Mutated gdb tails: the parser never crashes and keeps only checked code. */
static void test_mutations(void)
{
	const char *base = ";" X_EQ_3 U_EQ_8 ";cmds:1," DPRINTF5;
	size_t len = strlen(base);
	char *t = malloc(len);
	uint64_t seed = 12345;
	int accepted = 0, bad = 0;

	for (int iter = 0; iter < 20000; iter++) {
		struct agent_cond_list l;
		size_t n = len;
		int rc;

		memcpy(t, base, len);
		for (int k = 0; k < 1 + iter % 4; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			t[(seed >> 33) % len] = "0123456789abcdefX,;:c"[(seed >> 20) % 21];
		}
		if (iter % 3 == 0)
			n = (seed >> 40) % len;
		rc = agent_parse_conditions(t, n, &l);
		if (rc == 0) {
			accepted++;
			for (size_t i = 0; i < l.nconds; i++)
				bad += agent_check(l.conds[i].code, l.conds[i].len) != 0;
			for (size_t i = 0; i < l.ncmds; i++)
				bad += agent_check(l.cmds[i].code, l.cmds[i].len) != 0;
			agent_conds_hold(&l, &ENV);
			F.outlen = 0;
			agent_run_cmds(&l, &ENV);
		} else if (rc != -EINVAL) {
			bad++;
		}
		agent_cond_list_free(&l);
	}
	free(t);
	is_int(bad, 0, "mutated tails: only -EINVAL, and accepted code passes agent_check");
	ok(accepted > 0, "mutated tails: some still parse (%d)", accepted);
}

int main(void)
{
	fake_init(&F, &ENV);
	test_gdb_tails();
	test_bad_tails();
	test_limits();
	test_mutations();
	return done_testing();
}
