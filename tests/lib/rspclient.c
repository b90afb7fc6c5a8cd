/* rspclient: a small raw GDB Remote Serial Protocol client for tests.
 *
 *   rspclient [OPTIONS] ADDRESS ITEM...
 *
 * ADDRESS is HOST:PORT, :PORT (localhost), unix:PATH or tty:PATH (a
 * terminal, such as utraced's DIR/<pid>/gdb, made raw).  The ITEMs are
 * done in order, and every reply payload is printed on its own line:
 *
 *   PAYLOAD          send $PAYLOAD#cs (checksum computed), then print the
 *                    reply.  A NAK makes it send again (3 times at most).
 *                    Console output packets (O<hex>) and notifications
 *                    (%...) that come first are printed on lines of their
 *                    own, then the reply.
 *   --raw BYTES      send BYTES as they are, then print the first thing that
 *                    comes back: "-" for a NAK, "+" for an ACK (then also the
 *                    reply that follows it), or a packet's payload.
 *   --send BYTES     send BYTES as they are and print whatever comes back
 *                    until nothing has come for --quiet milliseconds.
 *   --long PREFIX N  send a packet of N bytes: PREFIX, then '0's; print the
 *                    reply as for PAYLOAD.  (Too long for a command line.)
 *   --nowait PAYLOAD send a packet and wait only for its ACK (e.g. "k").
 *   --sleep MS       pause.
 *   --expect-close   wait until the server closes the connection.
 *   --wait-file PATH wait until PATH exists (at most the -t timeout): how a
 *                    test holds the client at a point of its script.
 *   --loop PAYLOAD   send PAYLOAD and print its reply, again and again while
 *                    the reply is a stop (T.. or S..): e.g. "c" until the
 *                    exit (W..) or an error.
 *   --notif          wait for a notification (%Stop:..., non-stop mode) and
 *                    print it (and whatever else comes before it).
 *   --ping PAYLOAD N MS  send PAYLOAD N times, MS apart, each after the
 *                    reply to the last; print "max=M p50=P p99=Q n=N max_us=..
 *                    p99_us=.." (round trips in ms, then in microseconds).
 *
 * BYTES take C escapes: \xNN, \n, \r, \t, \0, \\.
 * Printed payloads are run-length decoded; bytes outside printable ASCII
 * are printed as \xNN and a backslash as \\.
 *
 * OPTIONS (before ADDRESS):
 *   -t SEC       how long to wait for each reply (default 10)
 *   --quiet MS   the silence that ends --send (default 500)
 *   --noack      negotiate QStartNoAckMode first (its reply is not printed)
 *   -v           log every byte sent and received on stderr
 *
 * Exit status: 0 done, 1 usage or connection error, 2 timeout waiting for a
 * reply (or for --expect-close or --wait-file), 3 the server closed the connection while a
 * reply was awaited.
 *
 * The decoding here is written from the protocol's rules on purpose, not
 * taken from src/rsp (whose client side ustrace uses): the tests' client
 * must not share the server's codec, or a mistake in it would be made the
 * same way on both ends and never seen. '}' escapes are printed as they
 * came, so that a test sees what went on the wire.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <fcntl.h>
#include <signal.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

enum unit_kind { U_ACK, U_NAK, U_PACKET, U_NOTIF, U_EOF, U_TIMEOUT };

struct unit {
	enum unit_kind kind;
	int checksum_ok;
	char *data; /* run-length decoded payload of a packet or notification */
	size_t len;
};

static int sock = -1;
static int is_tty; /* sock is a terminal: write() and read(), EIO is its hang-up */
static int timeout_ms = 10000;
static int quiet_ms = 500;
static int noack;
static int verbose;

/* Bytes read but not consumed yet. */
static unsigned char inbuf[65536];
static size_t in_start, in_end;

static void die(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("rspclient: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(code);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die(1, "out of memory");
	return p;
}

/* Prints LEN bytes of S, escaping what is not printable ASCII. */
static void print_escaped(FILE *f, const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '\\')
			fputs("\\\\", f);
		else if (c >= 0x20 && c < 0x7f)
			fputc(c, f);
		else
			fprintf(f, "\\x%02x", c);
	}
}

static void trace(const char *dir, const void *p, size_t len)
{
	if (!verbose)
		return;
	fprintf(stderr, "%s ", dir);
	print_escaped(stderr, p, len);
	fputc('\n', stderr);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

static void send_bytes(const void *p, size_t len)
{
	const char *s = p;

	trace("->", p, len);
	while (len > 0) {
		ssize_t n = is_tty ? write(sock, s, len) : send(sock, s, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die(3, "send: %s", strerror(errno));
		s += n;
		len -= (size_t)n;
	}
}

/* An ack is best effort: a server that closes the connection right after
 * its last reply (D, k) must not lose us that reply.  A closed connection
 * shows at the next read. */
static void send_ack(const char *ack)
{
	trace("->", ack, 1);
	while ((is_tty ? write(sock, ack, 1) : send(sock, ack, 1, MSG_NOSIGNAL)) < 0 &&
	       errno == EINTR)
		;
}

static void send_packet(const char *payload, size_t len)
{
	char *frame = xrealloc(NULL, len + 4);
	unsigned char sum = 0;
	size_t i;

	for (i = 0; i < len; i++)
		sum += (unsigned char)payload[i];
	frame[0] = '$';
	memcpy(frame + 1, payload, len);
	sprintf(frame + 1 + len, "#%02x", sum);
	send_bytes(frame, len + 4);
	free(frame);
}

/* Next received byte, or -1 at end of input, -2 when DEADLINE passes. */
static int next_byte(long deadline)
{
	while (in_start == in_end) {
		struct pollfd pfd = {.fd = sock, .events = POLLIN};
		long left = deadline - now_ms();
		ssize_t n;
		int r;

		if (left <= 0)
			return -2;
		r = poll(&pfd, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			die(1, "poll: %s", strerror(errno));
		if (r == 0)
			return -2;
		n = is_tty ? read(sock, inbuf, sizeof(inbuf)) : recv(sock, inbuf, sizeof(inbuf), 0);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0 && errno != ECONNRESET && !(is_tty && errno == EIO))
			die(1, "recv: %s", strerror(errno));
		if (n <= 0)
			return -1;
		trace("<-", inbuf, (size_t)n);
		in_start = 0;
		in_end = (size_t)n;
	}
	return inbuf[in_start++];
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Reads the rest of a packet after its '$' or '%': the payload up to '#'
 * and two checksum digits.  Decodes run-length encoding ("X*n": n - 29
 * more copies of X) into U->data. */
static void read_packet_body(struct unit *u, long deadline)
{
	size_t cap = 256;
	unsigned char sum = 0;
	int c, hi, lo;

	u->data = xrealloc(NULL, cap);
	u->len = 0;
	for (;;) {
		c = next_byte(deadline);
		if (c < 0)
			goto cut;
		if (c == '#')
			break;
		sum += (unsigned char)c;
		if (c == '*' && u->len > 0) {
			int n = next_byte(deadline);
			size_t extra;

			if (n < 0)
				goto cut;
			sum += (unsigned char)n;
			extra = n >= 29 ? (size_t)(n - 29) : 0;
			while (u->len + extra + 1 > cap)
				u->data = xrealloc(u->data, cap *= 2);
			memset(u->data + u->len, u->data[u->len - 1], extra);
			u->len += extra;
			continue;
		}
		if (u->len + 1 >= cap)
			u->data = xrealloc(u->data, cap *= 2);
		u->data[u->len++] = (char)c;
	}
	hi = next_byte(deadline);
	lo = hi < 0 ? hi : next_byte(deadline);
	if (lo < 0) {
		c = lo;
		goto cut;
	}
	u->checksum_ok = hexval(hi) >= 0 && hexval(lo) >= 0 && hexval(hi) * 16 + hexval(lo) == sum;
	u->data[u->len] = '\0';
	return;
cut:
	free(u->data);
	u->data = NULL;
	u->kind = c == -1 ? U_EOF : U_TIMEOUT;
}

/* Waits until DEADLINE for the next ACK, NAK, packet or notification.
 * Other bytes are skipped.  Packets are acknowledged (unless --noack). */
static struct unit next_unit(long deadline)
{
	struct unit u = {0};

	for (;;) {
		int c = next_byte(deadline);

		switch (c) {
		case -1:
			u.kind = U_EOF;
			return u;
		case -2:
			u.kind = U_TIMEOUT;
			return u;
		case '+':
			u.kind = U_ACK;
			return u;
		case '-':
			u.kind = U_NAK;
			return u;
		case '$':
		case '%':
			u.kind = c == '$' ? U_PACKET : U_NOTIF;
			read_packet_body(&u, deadline);
			if (u.kind == U_PACKET && !noack)
				send_ack(u.checksum_ok ? "+" : "-");
			if (u.kind == U_PACKET && !u.checksum_ok && !noack) {
				free(u.data);
				continue; /* asked for it again */
			}
			return u;
		default:
			if (verbose)
				fprintf(stderr, "rspclient: skipping byte 0x%02x\n", c);
		}
	}
}

static void print_unit(const struct unit *u)
{
	if (u->kind == U_ACK)
		puts("+");
	else if (u->kind == U_NAK)
		puts("-");
	else {
		if (u->kind == U_NOTIF)
			putchar('%');
		print_escaped(stdout, u->data, u->len);
		putchar('\n');
	}
	fflush(stdout);
}

static void free_unit(struct unit *u)
{
	free(u->data);
	u->data = NULL;
}

/* Console output "O<hex>" comes before the real reply; "OK" is a reply. */
static int is_console_output(const struct unit *u)
{
	size_t i;

	if (u->kind != U_PACKET || u->len < 3 || u->data[0] != 'O' || u->len % 2 == 0)
		return 0;
	for (i = 1; i < u->len; i++)
		if (hexval((unsigned char)u->data[i]) < 0)
			return 0;
	return 1;
}

static void fail_wait(const struct unit *u, const char *what)
{
	if (u->kind == U_EOF)
		die(3, "connection closed while waiting for %s", what);
	die(2, "timeout waiting for %s", what);
}

/* Sends a packet and prints its reply (or, with REPLY 0, only waits for
 * the ACK).  Returns the first byte of the reply (0 for none or empty). */
static int do_packet(const char *payload, size_t len, int reply)
{
	int naks = 0;

	send_packet(payload, len);
	if (!reply && noack)
		return 0;
	for (;;) {
		struct unit u = next_unit(now_ms() + timeout_ms);

		switch (u.kind) {
		case U_EOF:
		case U_TIMEOUT:
			fail_wait(&u, reply ? "a reply" : "an ack");
			break;
		case U_ACK:
			if (!reply)
				return 0;
			break;
		case U_NAK:
			if (++naks > 3) {
				print_unit(&u);
				return 0;
			}
			send_packet(payload, len);
			break;
		case U_NOTIF:
		case U_PACKET:
			print_unit(&u);
			if (u.kind == U_PACKET && !is_console_output(&u)) {
				int first = u.len ? (unsigned char)u.data[0] : 0;

				free_unit(&u);
				return first;
			}
			free_unit(&u);
		}
	}
}

static void do_wait_file(const char *path)
{
	long deadline = now_ms() + timeout_ms;

	while (access(path, F_OK) != 0) {
		if (now_ms() >= deadline)
			die(2, "timeout waiting for %s", path);
		usleep(20000);
	}
}

static void do_notif(void)
{
	long deadline = now_ms() + timeout_ms;

	for (;;) {
		struct unit u = next_unit(deadline);

		if (u.kind == U_EOF || u.kind == U_TIMEOUT)
			fail_wait(&u, "a notification");
		print_unit(&u);
		free_unit(&u);
		if (u.kind == U_NOTIF)
			return;
	}
}

static void do_loop(const char *payload)
{
	int first;

	do
		first = do_packet(payload, strlen(payload), 1);
	while (first == 'T' || first == 'S');
}

static long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000L + ts.tv_nsec / 1000;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/* One packet's round trip in microseconds (its reply unprinted). */
static long ping_once(const char *payload)
{
	long t0 = now_us();

	send_packet(payload, strlen(payload));
	for (;;) {
		struct unit u = next_unit(now_ms() + timeout_ms);
		int done = u.kind == U_PACKET && !is_console_output(&u);

		if (u.kind == U_EOF || u.kind == U_TIMEOUT)
			fail_wait(&u, "a reply");
		free_unit(&u);
		if (done)
			return now_us() - t0;
	}
}

static void do_ping(const char *payload, int n, int gap_ms)
{
	long *rtt = xrealloc(NULL, (size_t)(n > 0 ? n : 1) * sizeof(*rtt));

	for (int k = 0; k < n; k++) {
		rtt[k] = ping_once(payload);
		usleep((useconds_t)gap_ms * 1000);
	}
	qsort(rtt, (size_t)n, sizeof(*rtt), cmp_long);
	if (n > 0)
		printf("max=%ld p50=%ld p99=%ld n=%d max_us=%ld p99_us=%ld\n", rtt[n - 1] / 1000,
		       rtt[n / 2] / 1000, rtt[n * 99 / 100] / 1000, n, rtt[n - 1],
		       rtt[n * 99 / 100]);
	free(rtt);
}

/* Turns C escapes into bytes, in place; returns the length. */
static size_t unescape(char *s)
{
	char *out = s;
	const char *in = s;

	while (*in) {
		if (*in != '\\' || !in[1]) {
			*out++ = *in++;
			continue;
		}
		in++;
		switch (*in) {
		case 'n':
			*out++ = '\n';
			in++;
			break;
		case 'r':
			*out++ = '\r';
			in++;
			break;
		case 't':
			*out++ = '\t';
			in++;
			break;
		case '0':
			*out++ = '\0';
			in++;
			break;
		case 'x':
			if (hexval((unsigned char)in[1]) >= 0 &&
			    hexval((unsigned char)in[2]) >= 0) {
				*out++ = (char)(hexval((unsigned char)in[1]) * 16 +
						hexval((unsigned char)in[2]));
				in += 3;
				break;
			}
			/* fall through */
		default:
			*out++ = *in++;
		}
	}
	return (size_t)(out - s);
}

static void do_raw(char *bytes)
{
	struct unit u;

	send_bytes(bytes, unescape(bytes));
	u = next_unit(now_ms() + timeout_ms);
	if (u.kind == U_EOF || u.kind == U_TIMEOUT)
		fail_wait(&u, "an answer to raw bytes");
	print_unit(&u);
	if (u.kind != U_ACK) {
		free_unit(&u);
		return;
	}
	do {
		free_unit(&u);
		u = next_unit(now_ms() + timeout_ms);
		if (u.kind == U_EOF || u.kind == U_TIMEOUT)
			fail_wait(&u, "the reply after an ack");
		print_unit(&u);
	} while (u.kind == U_NOTIF || is_console_output(&u));
	free_unit(&u);
}

static void do_send(char *bytes)
{
	send_bytes(bytes, unescape(bytes));
	for (;;) {
		struct unit u = next_unit(now_ms() + quiet_ms);

		if (u.kind == U_EOF || u.kind == U_TIMEOUT)
			return;
		print_unit(&u);
		free_unit(&u);
	}
}

static void do_expect_close(void)
{
	long deadline = now_ms() + timeout_ms;

	for (;;) {
		struct unit u = next_unit(deadline);

		if (u.kind == U_EOF)
			return;
		if (u.kind == U_TIMEOUT)
			die(2, "timeout waiting for the server to close the connection");
		print_unit(&u);
		free_unit(&u);
	}
}

static int connect_to(const char *addr)
{
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res, *ai;
	char host[256];
	const char *colon;
	int fd = -1, err;

	if (strncmp(addr, "tty:", 4) == 0) {
		struct termios tio;

		fd = open(addr + 4, O_RDWR | O_NOCTTY);
		if (fd < 0)
			die(1, "open %s: %s", addr + 4, strerror(errno));
		if (tcgetattr(fd, &tio) == 0) {
			cfmakeraw(&tio);
			tcsetattr(fd, TCSANOW, &tio);
		}
		signal(SIGPIPE, SIG_IGN);
		is_tty = 1;
		return fd;
	}
	if (strncmp(addr, "unix:", 5) == 0) {
		struct sockaddr_un sun = {.sun_family = AF_UNIX};

		if (strlen(addr + 5) >= sizeof(sun.sun_path))
			die(1, "unix socket path too long: %s", addr + 5);
		strcpy(sun.sun_path, addr + 5);
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) != 0)
			die(1, "connect %s: %s", addr, strerror(errno));
		return fd;
	}
	colon = strrchr(addr, ':');
	if (!colon || (size_t)(colon - addr) >= sizeof(host))
		die(1, "bad address %s (want HOST:PORT, :PORT, unix:PATH or tty:PATH)", addr);
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	err = getaddrinfo(host[0] ? host : "localhost", colon + 1, &hints, &res);
	if (err)
		die(1, "%s: %s", addr, gai_strerror(err));
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype, ai->ai_protocol);
		if (fd >= 0 && connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		err = errno;
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0)
		die(1, "connect %s: %s", addr, strerror(err));
	return fd;
}

static void usage(void)
{
	fputs("usage: rspclient [-t SEC] [--quiet MS] [--noack] [-v] "
	      "HOST:PORT|:PORT|unix:PATH|tty:PATH "
	      "ITEM...\n"
	      "ITEM: PAYLOAD | --raw BYTES | --send BYTES | --long PREFIX N | --nowait PAYLOAD |\n"
	      "      --sleep MS | --expect-close | --wait-file PATH | --loop PAYLOAD | --notif\n"
	      "      | --ping PAYLOAD N MS\n"
	      "      (see the comment at the top of rspclient.c)\n",
	      stderr);
	exit(1);
}

/* The argument after ARGV[*I], which must exist. */
static char *arg_of(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		usage();
	return argv[++*i];
}

int main(int argc, char **argv)
{
	int i = 1;

	for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
		if (strcmp(argv[i], "-t") == 0)
			timeout_ms = atoi(arg_of(argc, argv, &i)) * 1000;
		else if (strcmp(argv[i], "--quiet") == 0)
			quiet_ms = atoi(arg_of(argc, argv, &i));
		else if (strcmp(argv[i], "--noack") == 0)
			noack = 1;
		else if (strcmp(argv[i], "-v") == 0)
			verbose = 1;
		else
			usage();
	}
	if (i >= argc)
		usage();
	sock = connect_to(argv[i++]);

	if (noack) {
		struct unit u;

		send_packet("QStartNoAckMode", 15);
		do
			u = next_unit(now_ms() + timeout_ms);
		while (u.kind == U_ACK);
		if (u.kind != U_PACKET || strcmp(u.data, "OK") != 0)
			die(1, "QStartNoAckMode was refused");
		free_unit(&u);
	}

	for (; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--raw") == 0) {
			do_raw(arg_of(argc, argv, &i));
		} else if (strcmp(a, "--send") == 0) {
			do_send(arg_of(argc, argv, &i));
		} else if (strcmp(a, "--long") == 0) {
			const char *prefix = arg_of(argc, argv, &i);
			size_t n = strtoul(arg_of(argc, argv, &i), NULL, 0), plen = strlen(prefix);
			char *p = xrealloc(NULL, n > plen ? n : plen);

			memset(p, '0', n > plen ? n : plen);
			memcpy(p, prefix, plen);
			do_packet(p, n > plen ? n : plen, 1);
			free(p);
		} else if (strcmp(a, "--nowait") == 0) {
			const char *p = arg_of(argc, argv, &i);

			do_packet(p, strlen(p), 0);
		} else if (strcmp(a, "--sleep") == 0) {
			usleep((useconds_t)atoi(arg_of(argc, argv, &i)) * 1000);
		} else if (strcmp(a, "--expect-close") == 0) {
			do_expect_close();
		} else if (strcmp(a, "--wait-file") == 0) {
			do_wait_file(arg_of(argc, argv, &i));
		} else if (strcmp(a, "--notif") == 0) {
			do_notif();
		} else if (strcmp(a, "--loop") == 0) {
			do_loop(arg_of(argc, argv, &i));
		} else if (strcmp(a, "--ping") == 0) {
			const char *p = arg_of(argc, argv, &i);
			int n = atoi(arg_of(argc, argv, &i));

			do_ping(p, n, atoi(arg_of(argc, argv, &i)));
		} else {
			do_packet(a, strlen(a), 1);
		}
	}
	close(sock);
	return 0;
}
