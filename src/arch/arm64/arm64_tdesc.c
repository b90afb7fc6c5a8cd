/*
 * arm64_tdesc.c: the target description gdb is given for an arm64
 * program (qXfer:features:read:target.xml).
 *
 * gdb recognises an aarch64 target by its features, not by the XML
 * text: "org.gnu.gdb.aarch64.core" must name x0-x30, sp, pc and cpsr
 * and "org.gnu.gdb.aarch64.fpu" v0-v31, fpsr and fpcr, in that order,
 * which is also the order of the 'g' packet (arm64_regs.c). The vector
 * registers get the union of lane views gdb's own description has, so
 * that $v0.d.f[0], $v0.s.u[3] or $v0.b.u[15] mean what they do with
 * gdbserver. Generated from the register table, once.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../tdesc_text.h"
#include "arm64.h"

#define TDESC_MAX 8192

/* cpsr (pstate's low half): the bits a user program can see or set */
static const struct {
	const char *name;
	int start, end;
} cpsr_bits[] = {
	{"SP", 0, 0},	{"EL", 2, 3},	 {"nRW", 4, 4},	    {"F", 6, 6},      {"I", 7, 7},
	{"A", 8, 8},	{"D", 9, 9},	 {"BTYPE", 10, 11}, {"SSBS", 12, 12}, {"IL", 20, 20},
	{"SS", 21, 21}, {"PAN", 22, 22}, {"UAO", 23, 23},   {"DIT", 24, 24},  {"TCO", 25, 25},
	{"V", 28, 28},	{"C", 29, 29},	 {"Z", 30, 30},	    {"N", 31, 31},
};

/* one 128-bit register seen as lanes: per lane width, its float/unsigned/signed vectors */
static const struct {
	const char *view;  /* field of aarch64v */
	const char *fl;	   /* float element type, or NULL */
	const char *u, *s; /* unsigned, signed element types */
	int count;
} lanes[] = {
	{"d", "ieee_double", "uint64", "int64", 2}, {"s", "ieee_single", "uint32", "int32", 4},
	{"h", "ieee_half", "uint16", "int16", 8},   {"b", NULL, "uint8", "int8", 16},
	{"q", NULL, "uint128", "int128", 1},
};

static void add_core(struct tdesc_text *x, const struct arch_desc *d)
{
	tdesc_add(x, "<feature name=\"org.gnu.gdb.aarch64.core\">\n");
	tdesc_add(x, "  <flags id=\"cpsr_flags\" size=\"4\">\n");
	for (size_t i = 0; i < sizeof(cpsr_bits) / sizeof(cpsr_bits[0]); i++)
		tdesc_add(x, "    <field name=\"%s\" start=\"%d\" end=\"%d\"/>\n",
			  cpsr_bits[i].name, cpsr_bits[i].start, cpsr_bits[i].end);
	tdesc_add(x, "  </flags>\n");
	for (int i = 0; i <= ARM64_R_CPSR; i++) {
		const char *type = i == ARM64_R_SP     ? "data_ptr"
				   : i == ARM64_R_PC   ? "code_ptr"
				   : i == ARM64_R_CPSR ? "cpsr_flags"
						       : "int";

		tdesc_add(x, "  <reg name=\"%s\" bitsize=\"%d\" type=\"%s\" regnum=\"%d\"/>\n",
			  d->regs[i].name, d->regs[i].size * 8, type, i);
	}
	tdesc_add(x, "</feature>\n");
}

static void add_fpu(struct tdesc_text *x, const struct arch_desc *d)
{
	size_t n = sizeof(lanes) / sizeof(lanes[0]);

	tdesc_add(x, "<feature name=\"org.gnu.gdb.aarch64.fpu\">\n");
	for (size_t i = 0; i < n; i++) {
		if (lanes[i].fl)
			tdesc_add(x, "  <vector id=\"v%sf\" type=\"%s\" count=\"%d\"/>\n",
				  lanes[i].view, lanes[i].fl, lanes[i].count);
		tdesc_add(x, "  <vector id=\"v%su\" type=\"%s\" count=\"%d\"/>\n", lanes[i].view,
			  lanes[i].u, lanes[i].count);
		tdesc_add(x, "  <vector id=\"v%si\" type=\"%s\" count=\"%d\"/>\n", lanes[i].view,
			  lanes[i].s, lanes[i].count);
		tdesc_add(x, "  <union id=\"vn%s\">\n", lanes[i].view);
		if (lanes[i].fl)
			tdesc_add(x, "    <field name=\"f\" type=\"v%sf\"/>\n", lanes[i].view);
		tdesc_add(x, "    <field name=\"u\" type=\"v%su\"/>\n", lanes[i].view);
		tdesc_add(x, "    <field name=\"s\" type=\"v%si\"/>\n", lanes[i].view);
		tdesc_add(x, "  </union>\n");
	}
	tdesc_add(x, "  <union id=\"aarch64v\">\n");
	for (size_t i = 0; i < n; i++)
		tdesc_add(x, "    <field name=\"%s\" type=\"vn%s\"/>\n", lanes[i].view,
			  lanes[i].view);
	tdesc_add(x, "  </union>\n");
	for (int i = ARM64_R_V0; i <= ARM64_R_FPCR; i++)
		tdesc_add(x, "  <reg name=\"%s\" bitsize=\"%d\" type=\"%s\" regnum=\"%d\"/>\n",
			  d->regs[i].name, d->regs[i].size * 8,
			  i < ARM64_R_FPSR ? "aarch64v" : "int", i);
	tdesc_add(x, "</feature>\n");
}

static char arm64_xml[TDESC_MAX];
static pthread_once_t tdesc_once = PTHREAD_ONCE_INIT;

static void build(void)
{
	const struct arch_desc *d = arch_native();
	struct tdesc_text x = {.buf = arm64_xml, .cap = TDESC_MAX};

	tdesc_add(&x, "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n");
	tdesc_add(&x, "<target version=\"1.0\">\n");
	tdesc_add(&x, "<architecture>aarch64</architecture>\n<osabi>GNU/Linux</osabi>\n");
	add_core(&x, d);
	add_fpu(&x, d);
	tdesc_add(&x, "<feature name=\"org.gnu.gdb.aarch64.tls\">\n");
	tdesc_add(&x, "  <reg name=\"%s\" bitsize=\"64\" type=\"data_ptr\" regnum=\"%d\"/>\n",
		  d->regs[ARM64_R_TPIDR].name, ARM64_R_TPIDR);
	tdesc_add(&x, "</feature>\n");
	tdesc_add(&x, "</target>\n");
	if (x.overflow)
		arm64_xml[0] = '\0';
}

const char *arch_tdesc_xml(const struct arch_desc *d, const char *annex)
{
	if (!d || !annex || strcmp(annex, "target.xml") != 0)
		return NULL;
	pthread_once(&tdesc_once, build);
	return arm64_xml[0] ? arm64_xml : NULL;
}
