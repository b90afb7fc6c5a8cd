/*
 * The printf opcode (src/agent/agent_printf.c), which gdb emits for a
 * dprintf under `set dprintf-style agent`: gdb's escape and conversion
 * rules, %s strings read from the inferior, bounded output, and the
 * stack layout gdb uses (arguments pushed last first, then the channel and
 * the function, both unused here).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_fake.h"
#include "tap.h"

static struct fake F;
static struct agent_env ENV;

/*
 * Run `printf fmt` with args[0..nargs) as gdb would lay them out, pushing
 * nargs_pushed of them (to test underflow); the text lands in F.out.
 */
static int run_printf_n(const char *fmt, const uint64_t *args, size_t nargs, size_t nargs_pushed)
{
	size_t slen = strlen(fmt) + 1, len = 0;
	uint8_t *code = malloc(16 * nargs + slen + 32);
	int rc;

	for (size_t i = nargs_pushed; i-- > 0;) {
		code[len++] = 0x25; /* const64 */
		for (int b = 7; b >= 0; b--)
			code[len++] = (uint8_t)(args[i] >> (8 * b));
	}
	code[len++] = 0x22; /* const8 7: channel */
	code[len++] = 7;
	code[len++] = 0x22; /* const8 9: function */
	code[len++] = 9;
	code[len++] = 0x34; /* printf */
	code[len++] = (uint8_t)nargs;
	code[len++] = (uint8_t)(slen >> 8);
	code[len++] = (uint8_t)slen;
	memcpy(code + len, fmt, slen);
	len += slen;
	code[len++] = 0x27; /* end */
	F.outlen = 0;
	F.out[0] = '\0';
	rc = agent_check(code, len);
	if (rc == 0)
		rc = agent_eval(code, len, &ENV, NULL);
	free(code);
	return rc;
}

static int run_printf(const char *fmt, const uint64_t *args, size_t nargs)
{
	return run_printf_n(fmt, args, nargs, nargs);
}

#define ARGS(...) (const uint64_t[]){__VA_ARGS__}, sizeof((const uint64_t[]){__VA_ARGS__}) / 8

static void printf_is(const char *fmt, const uint64_t *args, size_t nargs, const char *want)
{
	int rc = run_printf(fmt, args, nargs);

	if (rc < 0) {
		ok(0, "printf \"%s\"", fmt);
		diag("    failed with %d", rc);
		return;
	}
	is_str(F.out, want, "printf \"%s\"", fmt);
}

static void printf_err(const char *fmt, const uint64_t *args, size_t nargs, int want)
{
	is_int(run_printf(fmt, args, nargs), want, "printf \"%s\" refused", fmt);
}

static void test_conversions(void)
{
	printf_is("plain\\n", NULL, 0, "plain\n");
	printf_is("100%%", NULL, 0, "100%");
	printf_is("%d|%i|%u|%x|%X|%o", ARGS(-1, -1, -1, -1, -1, -1),
		  "-1|-1|4294967295|ffffffff|FFFFFFFF|37777777777");
	printf_is("%ld|%lu|%lld|%llx", ARGS(-2, -2, -3, -3),
		  "-2|18446744073709551614|-3|fffffffffffffffd");
	printf_is("%zu|%zx", ARGS(-1, 255), "18446744073709551615|ff");
	printf_is("%hd|%hu|%hx", ARGS(0x18000, 0x18000, 0x12345), "-32768|32768|2345");
	printf_is("%d", ARGS(0x100000005ull), "5");
	printf_is("%c%c", ARGS('o', 'k'), "ok");
	printf_is("%p|%p", ARGS(0x1234, 0), "0x1234|(nil)");
	printf_is("%5d|%-5d|%05d|%+d|% d|%.3d|%#x|%#o|%.d", ARGS(42, 42, 42, 42, 42, 7, 255, 8, 0),
		  "   42|42   |00042|+42| 42|007|0xff|010|");
	printf_is("%-+8.3ld|%0-4d|", ARGS(-5, 3), "-005    |3   |");
	printf_is("%s|%.3s|%-8s|%8.2s|%s", ARGS(FAKE_STR, FAKE_STR, FAKE_STR, FAKE_STR, 0),
		  "hello|hel|hello   |      he|(null)");
	printf_is("\\a\\b\\e\\f\\n\\r\\t\\v\\\"\\\\", NULL, 0, "\a\b\033\f\n\r\t\v\"\\");
	printf_is("ab\"cd %d", NULL, 0, "ab");
	is_int(run_printf("%c", ARGS(0)), 0, "%%c of 0");
	is_int(F.outlen, 1, "...prints one NUL byte");
}

static void test_format_errors(void)
{
	static const struct {
		const char *fmt;
		int rc;
	} bad[] = {
		{"%n", -EINVAL},      {"%*d", -EINVAL},
		{"%.*d", -EINVAL},    {"%hhd", -EINVAL},
		{"%#u", -EINVAL},     {"%+x", -EINVAL},
		{"% u", -EINVAL},     {"%0s", -EINVAL},
		{"%+s", -EINVAL},     {"%.2c", -EINVAL},
		{"%05c", -EINVAL},    {"%hc", -EINVAL},
		{"%lp", -EINVAL},     {"%#p", -EINVAL},
		{"%.3p", -EINVAL},    {"%Ld", -EINVAL},
		{"%lld%", -EINVAL},   {"%q", -EINVAL},
		{"%lll", -EINVAL},    {"%2000d", -EINVAL},
		{"%.2000d", -EINVAL}, {"%99999999999d", -EINVAL},
		{"%lf", -EINVAL},     {"%hs", -EINVAL},
		{"%f", -EOPNOTSUPP},  {"%Lg", -EOPNOTSUPP},
		{"%Hf", -EOPNOTSUPP}, {"%DDf", -EOPNOTSUPP},
		{"%E", -EOPNOTSUPP},  {"%ls", -EOPNOTSUPP},
		{"%lc", -EOPNOTSUPP}, {"\\q", -EINVAL},
		{"abc\\", -EINVAL},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		printf_err(bad[i].fmt, ARGS(1, 2), bad[i].rc);
	is_int(run_printf("%d %d", ARGS(1)), -EINVAL, "too few arguments");
	is_int(run_printf("%d", ARGS(1, 2)), -EINVAL, "too many arguments");
	is_int(run_printf("text", ARGS(1)), -EINVAL, "an argument for no conversion");
	is_int(run_printf_n("%d %d", ARGS(1, 2), 1), -EINVAL,
	       "fewer values on the stack than nargs");
}

/* An endless string of 'a', recording how it is read. */
static size_t long_reads, long_crossed;
static int long_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	long_reads++;
	if (addr / 64 != (addr + len - 1) / 64)
		long_crossed++;
	memset(buf, 'a', len);
	return 0;
}

static void test_strings(void)
{
	int rc;

	printf_err("%s", ARGS(0x10), -EFAULT);
	ENV.read_mem = long_read;
	rc = run_printf("%s", ARGS(0x1003));
	is_int(rc, 0, "%%s of an endless string");
	is_int(F.outlen, AGENT_PRINTF_MAX, "...cut at AGENT_PRINTF_MAX");
	is_int(long_crossed, 0, "...read in aligned chunks");
	ok(long_reads <= AGENT_PRINTF_MAX / 64 + 1, "...of 64 bytes (%zu reads)", long_reads);
	long_reads = 0;
	is_int(run_printf("%.5s", ARGS(0x1003)), 0, "%%.5s of an endless string");
	is_str(F.out, "aaaaa", "...prints 5");
	is_int(long_reads, 1, "...after reading only 5");
	ENV.read_mem = NULL;
	printf_err("%s", ARGS(0x1003), -EOPNOTSUPP);
	printf_is("%s", ARGS(0), "(null)");
	ENV.read_mem = fake_read_mem;

	/* Five 1000-wide fields: 5000 bytes, cut at AGENT_PRINTF_MAX. */
	is_int(run_printf("%1000d%1000d%1000d%1000d%1000d", ARGS(1, 2, 3, 4, 5)), 0,
	       "5000 bytes of output");
	is_int(F.outlen, AGENT_PRINTF_MAX, "...cut at AGENT_PRINTF_MAX");
	ok(F.out[AGENT_PRINTF_MAX - 1] == ' ', "...in the middle of the fifth field");
}

static void test_print_callback(void)
{
	ENV.print = NULL;
	printf_err("x", NULL, 0, -EOPNOTSUPP);
	ENV.print = fake_print;
	F.print_rc = -EPIPE;
	printf_err("x", NULL, 0, -EPIPE);
	F.print_rc = 1;
	printf_err("x", NULL, 0, -EIO);
	F.print_rc = 0;
}

int main(void)
{
	fake_init(&F, &ENV);
	test_conversions();
	test_format_errors();
	test_strings();
	test_print_callback();
	return done_testing();
}
