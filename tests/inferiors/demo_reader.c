/* demo_reader: the RFC demo program.  Prints a prompt, then reads lines
 * from stdin with read(2) and echoes each one back as "got: LINE".
 * Exits with "bye after N lines" at end of input.
 *
 * Meant to be attached to while it sits in read(): `bt` shows
 * read <- read_line <- main, `print lines_seen` a global, and
 * `info locals` the locals of read_line (fd, len, cap) and main. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int lines_seen;                  /* global: lines echoed so far */
const char *prompt = "demo> ";   /* global string */

static void say(const char *s)
{
	size_t len = strlen(s);

	while (len > 0) {
		ssize_t n = write(1, s, len);
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

/* Reads one line (up to cap-1 bytes) one byte at a time, so the program
 * is blocked inside read() whenever it waits for input.  Returns the
 * length without the newline, or -1 at end of input. */
static int read_line(int fd, char *buf, int cap)
{
	int len = 0;
	char c;

	for (;;) {
		ssize_t n = read(fd, &c, 1); /* the demo stops here */
		if (n <= 0)
			return len > 0 ? len : -1;
		if (c == '\n')
			break;
		if (len < cap - 1)
			buf[len++] = c;
	}
	buf[len] = '\0';
	return len;
}

int main(void)
{
	char line[256] = "";
	char reply[300] = "";
	int len;

	say(prompt);
	while ((len = read_line(0, line, (int)sizeof(line))) >= 0) {
		lines_seen++;
		snprintf(reply, sizeof(reply), "got: %s\n", line);
		say(reply);
		say(prompt);
	}
	snprintf(reply, sizeof(reply), "\nbye after %d lines\n", lines_seen);
	say(reply);
	return 0;
}
