/*
 * tap.h: a tiny header-only TAP producer for the C unit tests.
 *
 * Call plan(n) first, or done_testing() last; check with ok(), is_int(),
 * is_str() and is_mem(), whose last arguments are a printf-style test name; end main() with "return
 * done_testing();" (or "return exit_status();" after plan()). Results go to stdout in the format
 * prove(1) reads, diagnostics to stderr as '#' comments. The exit status is
 * nonzero if any test failed or the plan was not met.
 */
#ifndef UTRACED_TAP_H
#define UTRACED_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_planned = -1;
static int tap_run;
static int tap_failed;

static inline void plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
}

static inline void tap_vdiag(const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs("# ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static inline __attribute__((format(printf, 1, 2))) void diag(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vdiag(fmt, ap);
	va_end(ap);
}

static inline int tap_vok(int pass, const char *file, int line, const char *fmt, va_list ap)
{
	tap_run++;
	printf("%sok %d - ", pass ? "" : "not ", tap_run);
	vprintf(fmt, ap);
	putchar('\n');
	if (pass)
		return 1;
	tap_failed++;
	diag("  Failed test at %s line %d", file, line);
	return 0;
}

static inline __attribute__((format(printf, 4, 5))) int tap_ok(int pass, const char *file, int line,
							       const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pass = tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	return pass;
}

static inline __attribute__((format(printf, 5, 6))) int
tap_is_int(long long got, long long want, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	tap_vok(got == want, file, line, fmt, ap);
	va_end(ap);
	if (got == want)
		return 1;
	diag("         got: %lld (%#llx)", got, got);
	diag("    expected: %lld (%#llx)", want, want);
	return 0;
}

static inline __attribute__((format(printf, 5, 6))) int
tap_is_str(const char *got, const char *want, const char *file, int line, const char *fmt, ...)
{
	int pass = got && want ? strcmp(got, want) == 0 : got == want;
	va_list ap;

	va_start(ap, fmt);
	tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (pass)
		return 1;
	diag("         got: %s%s%s", got ? "'" : "", got ? got : "NULL", got ? "'" : "");
	diag("    expected: %s%s%s", want ? "'" : "", want ? want : "NULL", want ? "'" : "");
	return 0;
}

static inline __attribute__((format(printf, 7, 8))) int tap_is_mem(const void *got, size_t gotlen,
								   const void *want, size_t wantlen,
								   const char *file, int line,
								   const char *fmt, ...)
{
	const unsigned char *g = got, *w = want;
	size_t n = gotlen < wantlen ? gotlen : wantlen;
	size_t i = 0;
	int pass;
	va_list ap;

	while (i < n && g[i] == w[i])
		i++;
	pass = gotlen == wantlen && i == n;
	va_start(ap, fmt);
	tap_vok(pass, file, line, fmt, ap);
	va_end(ap);
	if (pass)
		return 1;
	diag("    length got %zu, expected %zu", gotlen, wantlen);
	if (i < n)
		diag("    first difference at offset %zu: got 0x%02x, expected 0x%02x", i, g[i],
		     w[i]);
	return 0;
}

/* The test name ("...") is a printf format with its arguments. */
#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
#define is_int(got, want, ...)                                                                     \
	tap_is_int((long long)(got), (long long)(want), __FILE__, __LINE__, __VA_ARGS__)
#define is_str(got, want, ...) tap_is_str(got, want, __FILE__, __LINE__, __VA_ARGS__)
#define is_mem(got, gotlen, want, wantlen, ...)                                                    \
	tap_is_mem(got, gotlen, want, wantlen, __FILE__, __LINE__, __VA_ARGS__)

/* 0 if every test passed and the plan (if any) was met, 1 otherwise. */
static inline int exit_status(void)
{
	if (tap_planned >= 0 && tap_run != tap_planned) {
		diag("planned %d tests but ran %d", tap_planned, tap_run);
		return 1;
	}
	if (tap_failed)
		diag("failed %d of %d tests", tap_failed, tap_run);
	return tap_failed ? 1 : 0;
}

/* Print the plan now if plan() was not called; returns exit_status(). */
static inline int done_testing(void)
{
	if (tap_planned < 0) {
		tap_planned = tap_run;
		printf("1..%d\n", tap_run);
	}
	fflush(stdout);
	return exit_status();
}

#endif
