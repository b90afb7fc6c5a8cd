/*
 * arm64 target description (src/arch/arm64/arm64_tdesc.c): the two
 * features gdb looks for, every register once, in gdb's numbering, with
 * its size, the types it names defined before use, tags balanced. With
 * ARM64_TDESC_OUT set, the XML is written there too: tests/e2e/arm64_tdesc.t
 * then has gdb-multiarch load it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch/arch.h"
#include "tap.h"

/* Is every <tag> closed, in order, and every <x/> self-closed? */
static bool balanced(const char *s)
{
	char stack[16][32];
	int depth = 0;

	while ((s = strchr(s, '<'))) {
		const char *end = strchr(s, '>');
		size_t n;

		if (!end)
			return false;
		if (s[1] == '?' || s[1] == '!') {
			s = end;
			continue;
		}
		if (s[1] == '/') {
			n = strcspn(s + 2, " >");
			if (!depth || n >= 32 || strncmp(stack[depth - 1], s + 2, n) ||
			    stack[depth - 1][n])
				return false;
			depth--;
		} else if (end[-1] != '/') {
			n = strcspn(s + 1, " />");
			if (depth == 16 || n >= 32)
				return false;
			memcpy(stack[depth], s + 1, n);
			stack[depth++][n] = '\0';
		}
		s = end;
	}
	return depth == 0;
}

/* Where "<reg name=\"NAME\"" is, or NULL. */
static const char *reg_at(const char *xml, const char *name)
{
	char key[64];

	snprintf(key, sizeof(key), "<reg name=\"%s\"", name);
	return strstr(xml, key);
}

/* Is id defined (vector, union or flags) before its first use as a type? */
static bool defined_before_use(const char *xml, const char *id)
{
	char def[64], use[64];
	const char *d, *u;

	snprintf(def, sizeof(def), " id=\"%s\"", id);
	snprintf(use, sizeof(use), "type=\"%s\"", id);
	d = strstr(xml, def);
	u = strstr(xml, use);
	return d && u && d < u;
}

int main(void)
{
	const struct arch_desc *d = arch_get(ARCH_ARM64);
	const char *xml = arch_tdesc_xml(d, "target.xml"), *prev = NULL, *core, *fpu, *tls;
	const char *out = getenv("ARM64_TDESC_OUT");
	bool order = true, sizes = true;

	if (!ok(xml != NULL, "target.xml exists"))
		return done_testing();
	ok(arch_tdesc_xml(d, "aarch64-core.xml") == NULL, "no other annex");
	ok(arch_tdesc_xml(d, NULL) == NULL, "NULL annex");
	ok(strstr(xml, "<architecture>aarch64</architecture>") != NULL, "architecture aarch64");
	ok(strstr(xml, "<osabi>GNU/Linux</osabi>") != NULL, "osabi GNU/Linux");
	core = strstr(xml, "<feature name=\"org.gnu.gdb.aarch64.core\">");
	fpu = strstr(xml, "<feature name=\"org.gnu.gdb.aarch64.fpu\">");
	tls = strstr(xml, "<feature name=\"org.gnu.gdb.aarch64.tls\">");
	ok(core && fpu && tls && core < fpu && fpu < tls, "core feature, then fpu, then tls");
	ok(balanced(xml), "tags balanced");
	for (int i = 0; i < d->nregs; i++) {
		const char *at = reg_at(xml, d->regs[i].name);
		char attrs[64];

		snprintf(attrs, sizeof(attrs), "bitsize=\"%d\"", d->regs[i].size * 8);
		if (!at || (prev && at < prev) || (i <= 33 && at > fpu) || (i > 33 && at < fpu) ||
		    ((i == 68) != (at > tls)))
			order = false;
		if (!at || strncmp(strchr(at + 10, ' ') + 1, attrs, strlen(attrs)))
			sizes = false;
		snprintf(attrs, sizeof(attrs), "regnum=\"%d\"", i);
		if (!at || !strstr(at, attrs) || strstr(at, attrs) > strchr(at, '>'))
			order = false;
		prev = at;
	}
	ok(order, "every register once, in regnum order, in its feature");
	ok(sizes, "every register's bitsize");
	ok(strstr(reg_at(xml, "sp"), "type=\"data_ptr\"") < strchr(reg_at(xml, "sp"), '>'),
	   "sp is a data_ptr");
	ok(strstr(reg_at(xml, "pc"), "type=\"code_ptr\"") < strchr(reg_at(xml, "pc"), '>'),
	   "pc is a code_ptr");
	ok(strstr(reg_at(xml, "tpidr"), "type=\"data_ptr\"") < strchr(reg_at(xml, "tpidr"), '>'),
	   "tpidr is a data_ptr");
	ok(defined_before_use(xml, "cpsr_flags"), "cpsr_flags defined before cpsr");
	ok(defined_before_use(xml, "aarch64v"), "aarch64v defined before v0");
	ok(defined_before_use(xml, "vnd") && defined_before_use(xml, "vnb") &&
		   defined_before_use(xml, "vnq"),
	   "lane unions defined before aarch64v");
	if (out) {
		FILE *f = fopen(out, "w");

		ok(f && fputs(xml, f) >= 0 && fclose(f) == 0, "written to %s", out);
	}
	return done_testing();
}
