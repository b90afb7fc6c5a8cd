/*
 * x86 target description XML (qXfer:features:read), generated once per
 * personality from the register tables so that names, sizes, types and
 * register numbers in the XML always agree with what 'g'/'p' send.
 *
 * One self-contained "target.xml" holds every feature, in the order
 * gdbserver 13 uses: org.gnu.gdb.i386.core, .sse, .linux, .segments (amd64
 * only), .avx. Each feature starts with the types its registers use.
 *
 * AVX is always described, whatever the CPU: every x86-64 machine we target
 * has it (the development machine's /proc/cpuinfo lists avx and avx2), and
 * keeping the register numbering fixed per personality keeps the tables
 * static. On a CPU without AVX, the ymm*h registers read as zero (the
 * XSAVE image is too short) and writing them fails.
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "../tdesc_text.h"
#include "x86.h"

static const char *const feature_names[X86_F_COUNT] = {
	[X86_F_CORE] = "org.gnu.gdb.i386.core",	  [X86_F_SSE] = "org.gnu.gdb.i386.sse",
	[X86_F_LINUX] = "org.gnu.gdb.i386.linux", [X86_F_SEGMENTS] = "org.gnu.gdb.i386.segments",
	[X86_F_AVX] = "org.gnu.gdb.i386.avx",
};

/* Named bits of a flags type. */
struct flag_bit {
	const char *name;
	int bit;
};

static const struct flag_bit eflags_bits[] = {
	{"CF", 0},  {"PF", 2},	 {"AF", 4},   {"ZF", 6},  {"SF", 7},  {"TF", 8},
	{"IF", 9},  {"DF", 10},	 {"OF", 11},  {"NT", 14}, {"RF", 16}, {"VM", 17},
	{"AC", 18}, {"VIF", 19}, {"VIP", 20}, {"ID", 21}, {NULL, 0},
};

static const struct flag_bit mxcsr_bits[] = {
	{"IE", 0}, {"DE", 1}, {"ZE", 2},  {"OE", 3},  {"UE", 4},  {"PE", 5},  {"DAZ", 6}, {"IM", 7},
	{"DM", 8}, {"ZM", 9}, {"OM", 10}, {"UM", 11}, {"PM", 12}, {"FZ", 15}, {NULL, 0},
};

/* The lanes of the vec128 union: field name, vector id, element type, count. */
static const struct {
	const char *field, *id, *elem;
	int count;
} vec128_lanes[] = {
	{"v8_bfloat16", "v8bf16", "bfloat16", 8}, {"v8_half", "v8h", "ieee_half", 8},
	{"v4_float", "v4f", "ieee_single", 4},	  {"v2_double", "v2d", "ieee_double", 2},
	{"v16_int8", "v16i8", "int8", 16},	  {"v8_int16", "v8i16", "int16", 8},
	{"v4_int32", "v4i32", "int32", 4},	  {"v2_int64", "v2i64", "int64", 2},
};

#define TDESC_MAX 16384

static void add_flags(struct tdesc_text *x, const char *id, const struct flag_bit *bits)
{
	tdesc_add(x, "  <flags id=\"%s\" size=\"4\">\n", id);
	for (; bits->name; bits++)
		tdesc_add(x, "    <field name=\"%s\" start=\"%d\" end=\"%d\" type=\"bool\"/>\n",
			  bits->name, bits->bit, bits->bit);
	tdesc_add(x, "  </flags>\n");
}

static void add_types(struct tdesc_text *x, enum x86_feature f)
{
	size_t i;

	switch (f) {
	case X86_F_CORE:
		add_flags(x, "i386_eflags", eflags_bits);
		break;
	case X86_F_SSE:
		for (i = 0; i < sizeof(vec128_lanes) / sizeof(vec128_lanes[0]); i++)
			tdesc_add(x, "  <vector id=\"%s\" type=\"%s\" count=\"%d\"/>\n",
				  vec128_lanes[i].id, vec128_lanes[i].elem, vec128_lanes[i].count);
		tdesc_add(x, "  <union id=\"vec128\">\n");
		for (i = 0; i < sizeof(vec128_lanes) / sizeof(vec128_lanes[0]); i++)
			tdesc_add(x, "    <field name=\"%s\" type=\"%s\"/>\n",
				  vec128_lanes[i].field, vec128_lanes[i].id);
		tdesc_add(x, "    <field name=\"uint128\" type=\"uint128\"/>\n");
		tdesc_add(x, "  </union>\n");
		add_flags(x, "i386_mxcsr", mxcsr_bits);
		break;
	default:
		break;
	}
}

static void build(const struct arch_desc *d, char *buf)
{
	const struct x86_desc *xd = x86_desc_of(d);
	struct tdesc_text x = {.buf = buf, .cap = TDESC_MAX};
	int f, i;

	tdesc_add(&x, "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n");
	tdesc_add(&x, "<target version=\"1.0\">\n");
	tdesc_add(&x, "<architecture>%s</architecture>\n<osabi>GNU/Linux</osabi>\n", xd->bfd_arch);
	for (f = 0; f < X86_F_COUNT; f++) {
		bool any = false;

		for (i = 0; i < d->nregs; i++)
			any |= xd->info[i].feature == f;
		if (!any)
			continue;
		tdesc_add(&x, "<feature name=\"%s\">\n", feature_names[f]);
		add_types(&x, f);
		for (i = 0; i < d->nregs; i++) {
			const struct x86_reg_info *info = &xd->info[i];

			if (info->feature != f)
				continue;
			tdesc_add(&x, "  <reg name=\"%s\" bitsize=\"%d\" type=\"%s\" regnum=\"%d\"",
				  d->regs[i].name, d->regs[i].size * 8, info->type, i);
			if (info->group)
				tdesc_add(&x, " group=\"%s\"", info->group);
			tdesc_add(&x, "/>\n");
		}
		tdesc_add(&x, "</feature>\n");
	}
	tdesc_add(&x, "</target>\n");
	if (x.overflow)
		buf[0] = '\0';
}

static char amd64_xml[TDESC_MAX];
static char i386_xml[TDESC_MAX];
static pthread_once_t tdesc_once = PTHREAD_ONCE_INIT;

static void build_all(void)
{
	build(arch_get(ARCH_AMD64), amd64_xml);
	build(arch_get(ARCH_I386), i386_xml);
}

const char *arch_tdesc_xml(const struct arch_desc *d, const char *annex)
{
	const char *xml;

	if (!d || !annex || strcmp(annex, "target.xml") != 0)
		return NULL;
	pthread_once(&tdesc_once, build_all);
	xml = d->kind == ARCH_I386 ? i386_xml : amd64_xml;
	return xml[0] ? xml : NULL;
}
