/*
 * agent_printf: the formatter behind the printf opcode, which gdb emits
 * for a dprintf when `set dprintf-style agent` is in effect.
 *
 * The format string comes from the client, so it never reaches the C
 * library as it is. We read it the way gdb's own format parser does (C
 * escapes first, then %-conversions, with the same rules about which flags
 * suit which conversion), accept the integer, character, pointer and
 * string conversions (floating point and wide characters need types the
 * bytecode cannot carry), bound widths and precisions, and give snprintf
 * one rebuilt conversion at a time with an argument of the C type that
 * conversion expects. Strings for %s are read from the inferior in small
 * aligned pieces, so a read never crosses into a page the string does not
 * reach.
 */
#include "agent_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Widest field and longest precision accepted: the output is bounded anyway. */
#define AGENT_FIELD_MAX 1024
/* %s strings are read in pieces of this size, aligned to it. */
#define AGENT_STR_CHUNK 64

/* The text being built: never more than max bytes, the rest dropped. */
struct agent_out {
	char *buf;
	size_t len, max;
};

/* One %-conversion, as parsed. */
struct agent_conv {
	char flags[6]; /* at most one each of "-+ #0", NUL-terminated */
	int width;     /* -1: none */
	int prec;      /* -1: none */
	int lcount;    /* 'l' count */
	bool h, big_l, z;
	char conv;
};

static void agent_out_add(struct agent_out *o, const char *s, size_t n)
{
	size_t room = o->max - o->len;

	if (n > room)
		n = room;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

/*
 * Replace the C escapes gdb's parser knows, in place; an unescaped '"'
 * ends the format, as it does for gdb. Returns the new length, or
 * -EINVAL for an escape gdb refuses.
 */
static long agent_unescape(char *s, size_t len)
{
	static const char from[] = "\\abefnrtv\"", to[] = "\\\a\b\033\f\n\r\t\v\"";
	size_t i = 0, j = 0;

	while (i < len && s[i] != '"') {
		const char *e;

		if (s[i] != '\\') {
			s[j++] = s[i++];
			continue;
		}
		if (i + 1 >= len || s[i + 1] == '\0' || !(e = strchr(from, s[i + 1])))
			return -EINVAL;
		s[j++] = to[e - from];
		i += 2;
	}
	return (long)j;
}

/* A decimal field of at most AGENT_FIELD_MAX at s[*i]; -1 if there is none. */
static int agent_number(const char *s, size_t len, size_t *i, int *out)
{
	long v = -1;

	while (*i < len && s[*i] >= '0' && s[*i] <= '9') {
		v = (v < 0 ? 0 : v) * 10 + (s[*i] - '0');
		if (v > AGENT_FIELD_MAX)
			return -EINVAL;
		(*i)++;
	}
	*out = (int)v;
	return 0;
}

/* Parse the conversion after a '%' at s[*i] (not "%%"), gdb's rules. */
static int agent_parse_conv(const char *s, size_t len, size_t *i, struct agent_conv *c)
{
	size_t nflags = 0;

	memset(c, 0, sizeof(*c));
	while (*i < len && s[*i] != '\0' && strchr("-+ #0", s[*i])) {
		if (!strchr(c->flags, s[*i]))
			c->flags[nflags++] = s[*i];
		(*i)++;
	}
	if (agent_number(s, len, i, &c->width) < 0)
		return -EINVAL;
	c->prec = -1;
	if (*i < len && s[*i] == '.') {
		(*i)++;
		if (agent_number(s, len, i, &c->prec) < 0)
			return -EINVAL;
		if (c->prec < 0)
			c->prec = 0; /* "%.d": precision zero */
	}
	for (; *i < len && c->lcount < 2 && s[*i] == 'l'; (*i)++)
		c->lcount++;
	if (!c->lcount && *i < len && s[*i] != '\0' && strchr("hLzHD", s[*i])) {
		c->h = s[*i] == 'h';
		c->big_l = s[*i] == 'L';
		c->z = s[*i] == 'z';
		if (s[*i] == 'H' || s[*i] == 'D')
			return -EOPNOTSUPP; /* decimal floating point */
		(*i)++;
	}
	if (*i >= len)
		return -EINVAL;
	c->conv = s[(*i)++];
	return 0;
}

/* Whether a flag of set appears in the conversion. */
static bool agent_has(const struct agent_conv *c, const char *set)
{
	return strpbrk(c->flags, set) != NULL;
}

/* The modifier combinations gdb's parser rejects, and what we cannot print. */
static int agent_conv_ok(const struct agent_conv *c)
{
	bool prec = c->prec >= 0;

	switch (c->conv) {
	case 'u':
		if (agent_has(c, "#"))
			return -EINVAL;
		/* fall through */
	case 'o':
	case 'x':
	case 'X':
		if (agent_has(c, " +"))
			return -EINVAL;
		/* fall through */
	case 'd':
	case 'i':
		return c->big_l ? -EINVAL : 0;
	case 'c':
		if (c->lcount > 1 || c->h || c->big_l || c->z || prec || agent_has(c, "0 +"))
			return -EINVAL;
		return c->lcount ? -EOPNOTSUPP : 0;
	case 'p':
		if (c->lcount || c->h || c->big_l || c->z || prec || agent_has(c, "#0 +"))
			return -EINVAL;
		return 0;
	case 's':
		if (c->lcount > 1 || c->h || c->big_l || c->z || agent_has(c, "0 +"))
			return -EINVAL;
		return c->lcount ? -EOPNOTSUPP : 0;
	case 'e':
	case 'f':
	case 'g':
	case 'E':
	case 'G':
		return c->lcount || c->h || c->z ? -EINVAL : -EOPNOTSUPP;
	}
	return -EINVAL; /* '*', 'n', unknown conversions */
}

/*
 * Read the NUL-terminated string at addr into str[0..max] (at most max
 * bytes, then a NUL). Aligned chunks never cross a page, so a chunk fails
 * only where the string itself would; a reader that wants every byte
 * readable (not just pages) gets a second chance byte by byte.
 */
static int agent_read_str(const struct agent_env *env, uint64_t addr, char *str, size_t max)
{
	size_t got = 0;

	while (got < max) {
		size_t n = AGENT_STR_CHUNK - (size_t)((addr + got) % AGENT_STR_CHUNK);
		int rc;

		if (n > max - got)
			n = max - got;
		rc = env->read_mem(env->ctx, addr + got, str + got, n);
		if (rc != 0 && n > 1) {
			n = 1;
			rc = env->read_mem(env->ctx, addr + got, str + got, 1);
		}
		if (rc != 0)
			return rc < 0 ? rc : -EIO;
		if (memchr(str + got, '\0', n))
			return 0;
		got += n;
	}
	str[max] = '\0';
	return 0;
}

/*
 * Append one conversion of arg, rebuilt from its parsed parts. spec is
 * not a literal, but it is built here from checked pieces only, and each
 * branch passes the type its conversion expects.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static int agent_emit_conv(const struct agent_env *env, const struct agent_conv *c, uint64_t arg,
			   struct agent_out *o)
{
	char spec[32], str[AGENT_PRINTF_MAX + 1], text[AGENT_PRINTF_MAX + 1];
	int n;

	snprintf(spec, sizeof(spec), "%%%s%.0d%s%.0d%s%s%c", c->flags, c->width > 0 ? c->width : 0,
		 c->prec >= 0 ? "." : "", c->prec > 0 ? c->prec : 0,
		 c->lcount == 2 ? "ll"
		 : c->lcount	? "l"
				: "",
		 c->h	? "h"
		 : c->z ? "z"
			: "",
		 c->conv);
	if (o->len == o->max)
		return 0; /* nothing more fits: do not even read the string */
	if (c->conv == 's') {
		size_t max = c->prec >= 0 && c->prec < AGENT_PRINTF_MAX ? (size_t)c->prec
									: AGENT_PRINTF_MAX;
		int rc = 0;

		if (arg && !env->read_mem)
			return -EOPNOTSUPP;
		if (arg)
			rc = agent_read_str(env, arg, str, max);
		if (rc < 0)
			return rc;
		n = snprintf(text, sizeof(text), spec, arg ? str : "(null)");
	} else if (c->conv == 'p') {
		n = snprintf(text, sizeof(text), spec, (void *)(uintptr_t)arg);
	} else if (c->lcount == 2) {
		n = snprintf(text, sizeof(text), spec, (long long)arg);
	} else if (c->lcount == 1) {
		n = snprintf(text, sizeof(text), spec, (long)arg);
	} else if (c->z) {
		n = snprintf(text, sizeof(text), spec, (size_t)arg);
	} else {
		n = snprintf(text, sizeof(text), spec, (int)arg);
	}
	if (n < 0)
		return -EINVAL;
	agent_out_add(o, text, (size_t)n < sizeof(text) ? (size_t)n : sizeof(text) - 1);
	return 0;
}
#pragma GCC diagnostic pop

/* Format the unescaped format s[0..len) into o. */
static int agent_format_pieces(const struct agent_env *env, const char *s, size_t len,
			       const uint64_t *args, size_t nargs, struct agent_out *o)
{
	size_t i = 0, used = 0;

	while (i < len) {
		struct agent_conv c;
		size_t lit = i;
		int rc;

		while (i < len && s[i] != '%')
			i++;
		agent_out_add(o, s + lit, i - lit);
		if (i++ >= len)
			break;
		if (i < len && s[i] == '%') {
			agent_out_add(o, "%", 1);
			i++;
			continue;
		}
		rc = agent_parse_conv(s, len, &i, &c);
		if (rc == 0)
			rc = agent_conv_ok(&c);
		if (rc == 0 && used >= nargs)
			rc = -EINVAL;
		if (rc == 0)
			rc = agent_emit_conv(env, &c, args[used++], o);
		if (rc < 0)
			return rc;
	}
	return used == nargs ? 0 : -EINVAL;
}

/* See agent_int.h. */
int agent_format(const struct agent_env *env, const char *fmt, size_t fmtlen, const uint64_t *args,
		 size_t nargs, char *out, size_t outmax, size_t *outlen)
{
	struct agent_out o = {.buf = out, .max = outmax};
	char *s;
	long len;
	int rc;

	*outlen = 0;
	s = malloc(fmtlen + 1);
	if (!s)
		return -ENOMEM;
	memcpy(s, fmt, fmtlen);
	s[fmtlen] = '\0';
	len = agent_unescape(s, strnlen(s, fmtlen));
	rc = len < 0 ? (int)len : agent_format_pieces(env, s, (size_t)len, args, nargs, &o);
	free(s);
	if (rc == 0)
		*outlen = o.len;
	return rc;
}
