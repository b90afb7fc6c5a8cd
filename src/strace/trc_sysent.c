/*
 * trc_sysent.c: syscall numbers to names and decoders, errno names.
 *
 * Every table here is generated at build time (trc_gen.sh): the names by
 * number from the kernel's unistd_64.h and unistd_32.h, the errno names
 * from its errno headers, and the per-name argument counts, classes and
 * decoders from trc_syscalls.in. A number is joined to its spec by name
 * (bsearch), so i386 and x86-64 share one spec list.
 */
#include <stdlib.h>
#include <string.h>

#include "trc_int.h"

#include "trc_decoders.h"

const struct trc_spec trc_specs[] = {
#include "trc_specs.h"
};
const size_t trc_nspecs = sizeof(trc_specs) / sizeof(trc_specs[0]);

static const char *const names64[] = {
#include "trc_names_64.h"
};

static const char *const names32[] = {
#include "trc_names_32.h"
};

static const char *const errnames[] = {
#include "trc_errnames.h"
};

static const char *const *names_of(enum trc_pers p, long *n)
{
	if (p == TRC_PERS_32) {
		*n = (long)(sizeof(names32) / sizeof(names32[0]));
		return names32;
	}
	*n = (long)(sizeof(names64) / sizeof(names64[0]));
	return names64;
}

static int spec_cmp(const void *key, const void *ent)
{
	return strcmp(key, ((const struct trc_spec *)ent)->name);
}

const struct trc_spec *trc_spec_find(const char *name)
{
	return bsearch(name, trc_specs, trc_nspecs, sizeof(trc_specs[0]), spec_cmp);
}

const char *trc_syscall_name(enum trc_pers p, long nr)
{
	long n;
	const char *const *names = names_of(p, &n);

	return nr >= 0 && nr < n ? names[nr] : NULL;
}

long trc_syscall_max(enum trc_pers p)
{
	long n;

	names_of(p, &n);
	return n;
}

long trc_syscall_nr(enum trc_pers p, const char *name)
{
	long n, i;
	const char *const *names = names_of(p, &n);

	for (i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0)
			return i;
	return -1;
}

/*
 * The spec of every number, joined by name once per personality at its
 * first use (a bsearch of strcmps per syscall made every traced call and
 * every class of -e trace= pay it again). All users run on one thread:
 * the daemon's event loop, ustrace's main.
 */
static const struct trc_spec *specs64[sizeof(names64) / sizeof(names64[0])];
static const struct trc_spec *specs32[sizeof(names32) / sizeof(names32[0])];

static const struct trc_spec *const *specs_of(enum trc_pers p)
{
	static bool joined[2];
	const struct trc_spec **specs = p == TRC_PERS_32 ? specs32 : specs64;
	long n;
	const char *const *names = names_of(p, &n);

	if (joined[p == TRC_PERS_32])
		return specs;
	for (long i = 0; i < n; i++)
		specs[i] = names[i] ? trc_spec_find(names[i]) : NULL;
	joined[p == TRC_PERS_32] = true;
	return specs;
}

const struct trc_spec *trc_spec_of(enum trc_pers p, long nr)
{
	return nr >= 0 && nr < trc_syscall_max(p) ? specs_of(p)[nr] : NULL;
}

const char *trc_errno_name(int err)
{
	if (err <= 0 || err >= (int)(sizeof(errnames) / sizeof(errnames[0])))
		return NULL;
	return errnames[err];
}
