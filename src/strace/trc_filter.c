/*
 * trc_filter.c: -e trace=SET and -e signal=SET, parsed as strace does.
 *
 * A set is a comma list; a leading "!" takes the complement of the whole
 * list. Syscall elements are names (of either personality), classes
 * (%file, or the old spelling "file"), "all" and "none"; "?" before an
 * element makes an unknown one silently ignored; "/REGEX" names every
 * syscall whose name matches. The result is one bit
 * per syscall number and personality, so the caller can hand the engine
 * exactly the numbers to stop for. -P's paths are kept here too.
 */
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trc_int.h"

static const struct {
	const char *name;
	unsigned mask;
} classes[] = {
	{"file", TC_FILE},    {"ipc", TC_IPC},	   {"network", TC_NET}, {"net", TC_NET},
	{"process", TC_PROC}, {"signal", TC_SIG},  {"desc", TC_DESC},	{"memory", TC_MEM},
	{"stat", TC_STAT},    {"lstat", TC_LSTAT}, {"fstat", TC_FSTAT}, {"%stat", TC_STATALL},
	{"creds", TC_CREDS},  {"clock", TC_CLOCK}, {"pure", TC_PURE},
};

/* -1: not a class. Without "%" only strace's original class names count. */
static int class_mask(const char *name, bool percent)
{
	static const char *const old[] = {"file",   "ipc",  "network", "process",
					  "signal", "desc", "memory"};
	size_t i;
	bool known = percent;

	for (i = 0; !known && i < sizeof(old) / sizeof(old[0]); i++)
		known = strcmp(name, old[i]) == 0;
	if (!known)
		return -1;
	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++)
		if (strcmp(name, classes[i].name) == 0)
			return (int)classes[i].mask;
	return -1;
}

static void set_class(struct trc_set *set, unsigned mask)
{
	int p;
	long nr;

	for (p = 0; p < TRC_NPERS; p++) {
		for (nr = 0; nr < trc_syscall_max(p); nr++) {
			const struct trc_spec *sp = trc_spec_of(p, nr);

			if (sp && (sp->classes & mask))
				trc_set_put(&set[p], (unsigned)nr, true);
		}
	}
}

static bool set_name(struct trc_set *set, const char *name)
{
	bool found = false;
	int p;

	for (p = 0; p < TRC_NPERS; p++) {
		long nr = trc_syscall_nr(p, name);

		if (nr >= 0) {
			trc_set_put(&set[p], (unsigned)nr, true);
			found = true;
		}
	}
	return found;
}

/*
 * What a repetition at re multiplies the pattern by: 2 for '*', '+' and
 * '?', n + 1 for "{m,n}" or "{n}", m + 2 for "{m,}"; *len its length.
 */
static unsigned long repeat_factor(const char *re, size_t *len)
{
	char *end;
	unsigned long m, n;

	*len = 1;
	if (*re != '{')
		return 2;
	m = strtoul(re + 1, &end, 10);
	n = m;
	if (*end == ',' && end[1] == '}') {
		n = m + 1;
		end++;
	} else if (*end == ',') {
		n = strtoul(end + 1, &end, 10);
	}
	if (*end != '}')
		return 1; /* not an interval: regcomp() refuses it or reads it as text */
	*len = (size_t)(end - re) + 1;
	/* (huge bounds are over any budget: no wrap in n + 1) */
	return m >= ULONG_MAX / 2 || n >= ULONG_MAX / 2 ? ULONG_MAX : n + 1;
}

/*
 * glibc's regcomp() takes time exponential in stacked and nested
 * repetitions ("a+++++++++++++++++++++" alone: 19 s; "a{0,32}{0,32}{0,32}":
 * 2 s). The product of every repetition's factor bounds that: above
 * REGEX_BUDGET (twelve '*', or "a{0,63}{0,63}": well under 0.1 s) the
 * pattern is refused before regcomp() sees it. Found by ustrace_opts_fuzz.
 */
#define REGEX_BUDGET 4096

static bool regex_too_costly(const char *re)
{
	unsigned long cost = 1;
	bool in_bracket = false;

	for (size_t len; *re; re += len) {
		len = 1;
		if (in_bracket) {
			if (*re == '[' && (re[1] == ':' || re[1] == '.' || re[1] == '=')) {
				const char *close = strchr(re + 2, re[1]);

				len = close && close[1] == ']' ? (size_t)(close - re) + 2 : 1;
			} else if (*re == ']') {
				in_bracket = false;
			}
			continue;
		}
		if (*re == '\\') {
			len = re[1] ? 2 : 1;
		} else if (*re == '[') {
			in_bracket = true;
			/* a ']' first (after an optional '^') is a member */
			len = 1 + (re[1] == '^') + (re[1 + (re[1] == '^')] == ']');
		} else if (strchr("*+?{", *re)) {
			unsigned long f = repeat_factor(re, &len);

			if (f > REGEX_BUDGET || (cost *= f) > REGEX_BUDGET)
				return true;
		}
	}
	return false;
}

/* "/REGEX": every syscall whose name matches (POSIX extended); -1 if it does not compile. */
static int set_regex(struct trc_set *set, const char *re, bool *found)
{
	regex_t rx;
	int p;

	if (regex_too_costly(re) || regcomp(&rx, re, REG_EXTENDED | REG_NOSUB))
		return -1;
	for (p = 0; p < TRC_NPERS; p++) {
		for (long nr = 0; nr < trc_syscall_max(p); nr++) {
			const char *name = trc_syscall_name(p, nr);

			if (name && regexec(&rx, name, 0, NULL, 0) == 0) {
				trc_set_put(&set[p], (unsigned)nr, true);
				*found = true;
			}
		}
	}
	regfree(&rx);
	return 0;
}

static int trace_elem(struct trc_set *set, const char *e, char *err, size_t errlen)
{
	bool optional = *e == '?';
	int mask;

	if (optional)
		e++;
	if (strcmp(e, "all") == 0) {
		memset(set, 0xff, sizeof(*set) * TRC_NPERS);
		return 0;
	}
	if (strcmp(e, "none") == 0)
		return 0;
	if (*e == '/') {
		bool found = false;

		if (set_regex(set, e + 1, &found) < 0) {
			snprintf(err, errlen, "invalid regular expression '%s'", e + 1);
			return -1;
		}
		if (found || optional)
			return 0;
		snprintf(err, errlen, "invalid system call '%s'", e);
		return -1;
	}
	if (*e == '%')
		mask = class_mask(e + 1, true);
	else
		mask = class_mask(e, false);
	if (mask >= 0) {
		set_class(set, (unsigned)mask);
		return 0;
	}
	if (set_name(set, e) || optional)
		return 0;
	snprintf(err, errlen, "invalid system call '%s'", e);
	return -1;
}

static void invert(struct trc_set *s)
{
	size_t i;

	for (i = 0; i < sizeof(s->bits) / sizeof(s->bits[0]); i++)
		s->bits[i] = ~s->bits[i];
}

int trc_parse_set(struct trc_set set[TRC_NPERS], bool invert_all, const char *spec, char *err,
		  size_t errlen)
{
	bool neg = false;
	char *copy, *tok, *save = NULL;
	int rc = 0, p;

	for (; *spec == '!'; spec++) /* each ! takes the complement again */
		neg = !neg;
	memset(set, 0, sizeof(*set) * TRC_NPERS);
	copy = strdup(spec);
	if (!copy)
		abort();
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save))
		rc = trace_elem(set, tok, err, errlen);
	free(copy);
	if (rc)
		return -1;
	if (neg != invert_all)
		for (p = 0; p < TRC_NPERS; p++)
			invert(&set[p]);
	return 0;
}

int trc_parse_trace(struct trc_opts *o, const char *spec, char *err, size_t errlen)
{
	return trc_parse_set(o->trace, false, spec, err, errlen);
}

/* An fd past the bitmap: one of the few named ones, unless "all" has them already. */
static int add_big(struct trc_fdset *set, long fd)
{
	if (set->high)
		return 0;
	for (int i = 0; i < TRC_FDSET_BIG; i++) {
		if (!set->big[i] || set->big[i] == (uint32_t)fd + 1) {
			set->big[i] = (uint32_t)fd + 1;
			return 0;
		}
	}
	return -1;
}

int trc_parse_fds(struct trc_fdset *set, const char *spec, char *err, size_t errlen)
{
	const char *whole = spec;
	bool neg = false, any = false;
	char *copy, *tok, *save = NULL, *end;
	int rc = 0;

	for (; *spec == '!'; spec++) /* each ! takes the complement again */
		neg = !neg;
	memset(set, 0, sizeof(*set));
	if (!strcmp(spec, "all")) { /* all and none only as the whole set, as strace */
		memset(&set->low, 0xff, sizeof(set->low));
		set->high = true;
		any = true;
	}
	copy = strdup(any || !strcmp(spec, "none") ? "" : spec);
	if (!copy)
		abort();
	any = any || !strcmp(spec, "none");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		long fd = strtol(tok, &end, 10);

		any = true;
		if (end == tok || *end || *tok == '-' || *tok == '+' || fd < 0 ||
		    fd >= TRC_FD_MAX || (fd >= TRC_SET_MAX && add_big(set, fd) < 0)) {
			snprintf(err, errlen, "invalid descriptor '%s'", tok);
			rc = -1;
			break;
		}
		trc_set_put(&set->low, (unsigned)fd, true);
	}
	free(copy);
	if (!rc && !any) { /* "", ",", "!,": nothing named at all */
		snprintf(err, errlen, "invalid descriptor '%s'", whole);
		rc = -1;
	}
	if (!rc && neg) {
		invert(&set->low);
		set->high = !set->high;
	}
	return rc;
}

static const struct {
	const char *name;
	unsigned bits;
} quiet_names[] = {
	{"attach", TRC_QUIET_ATTACH},
	{"exit", TRC_QUIET_EXIT},
	{"exits", TRC_QUIET_EXIT},
	{"personality", TRC_QUIET_PERS},
	{"thread-execve", TRC_QUIET_THREAD_EXECVE},
	{"superseded", TRC_QUIET_SUPERSEDED},
	{"path-resolution", TRC_QUIET_PATH},
	{"all", TRC_QUIET_ALL},
	{"none", 0},
};

int trc_parse_quiet(struct trc_opts *o, const char *spec, char *err, size_t errlen)
{
	bool neg = false;
	char *copy, *tok, *save = NULL;
	unsigned bits = 0;
	int rc = 0;

	for (; *spec == '!'; spec++) /* each ! takes the complement again */
		neg = !neg;
	copy = strdup(spec);
	if (!copy)
		abort();
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t i, n = sizeof(quiet_names) / sizeof(quiet_names[0]);

		for (i = 0; i < n && strcmp(tok, quiet_names[i].name); i++)
			;
		if (i == n) {
			snprintf(err, errlen, "invalid quiet '%s'", tok);
			rc = -1;
			break;
		}
		bits |= quiet_names[i].bits;
	}
	free(copy);
	if (!rc)
		o->quiet = neg ? TRC_QUIET_ALL & ~bits : bits;
	return rc;
}

int trc_parse_signals(struct trc_opts *o, const char *spec, char *err, size_t errlen)
{
	bool neg = false;
	char *copy, *tok, *save = NULL;
	int rc = 0, sig;

	for (; *spec == '!'; spec++) /* each ! takes the complement again */
		neg = !neg;
	memset(&o->signals, 0, sizeof(o->signals));
	copy = strdup(spec);
	if (!copy)
		abort();
	for (tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "all") == 0) {
			memset(&o->signals, 0xff, sizeof(o->signals));
			continue;
		}
		if (strcmp(tok, "none") == 0)
			continue;
		sig = trc_signal_nr(tok);
		if (sig < 0) {
			snprintf(err, errlen, "invalid signal '%s'", tok);
			rc = -1;
			break;
		}
		trc_set_put(&o->signals, (unsigned)sig, true);
	}
	free(copy);
	if (rc)
		return -1;
	if (neg)
		invert(&o->signals);
	return 0;
}

size_t trc_traced_nrs(const struct trc_opts *o, enum trc_pers pers, long *nrs, size_t max)
{
	size_t n = 0;
	long nr;

	for (nr = 0; nr < trc_syscall_max(pers); nr++) {
		if (!trc_set_has(&o->trace[pers], (unsigned)nr))
			continue;
		if (n < max)
			nrs[n] = nr;
		n++;
	}
	return n;
}

bool trc_traces_all(const struct trc_opts *o, enum trc_pers pers)
{
	long nr;

	for (nr = 0; nr < trc_syscall_max(pers); nr++)
		if (!trc_set_has(&o->trace[pers], (unsigned)nr))
			return false;
	return true;
}

size_t trc_paths_used(const struct trc_opts *o)
{
	size_t n = 0;

	while (o->paths[n])
		n += strlen(o->paths + n) + 1;
	return n;
}

bool trc_path_wanted(const struct trc_opts *o, const char *path)
{
	for (size_t n = 0; o->paths[n]; n += strlen(o->paths + n) + 1)
		if (!strcmp(o->paths + n, path))
			return true;
	return false;
}

static int add_one_path(struct trc_opts *o, const char *path, char *err, size_t errlen)
{
	size_t used = trc_paths_used(o), len = strlen(path);

	if (!len) {
		snprintf(err, errlen, "-P: an empty path");
		return -1;
	}
	if (trc_path_wanted(o, path))
		return 0;
	if (used + len + 2 > sizeof(o->paths)) {
		snprintf(err, errlen, "-P: too many paths (%zu bytes at the most)",
			 sizeof(o->paths) - 1);
		return -1;
	}
	memcpy(o->paths + used, path, len + 1);
	o->paths[used + len + 1] = '\0';
	return 0;
}

int trc_add_path(struct trc_opts *o, const char *path, char *err, size_t errlen)
{
	char *target;
	int rc = add_one_path(o, path, err, errlen);

	if (rc < 0)
		return rc;
	/* a link: its target too (a missing path is taken as it is, as strace does) */
	target = realpath(path, NULL);
	if (target && strcmp(target, path))
		rc = add_one_path(o, target, err, errlen);
	free(target);
	return rc;
}
