/* mem_dump: maps argv[1] MiB (default 64), fills byte i with
 * (i * 131 + 7) & 0xff, then calls ready(); case c dumps the buffer from gdb.
 * `mem_dump --check FILE MIB` checks such a dump instead (exit 0 if good). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

unsigned char *buf;
unsigned long buf_len;

void __attribute__((noinline)) ready(void)
{
}

static int check(const char *path, unsigned long len)
{
	FILE *f = fopen(path, "rb");
	unsigned long i = 0;
	int c;

	if (!f)
		return perror(path), 1;
	while ((c = getc(f)) != EOF && i < len && c == (unsigned char)(i * 131 + 7))
		i++;
	fclose(f);
	if (i != len || c != EOF) {
		fprintf(stderr, "%s: bad at byte %lu of %lu\n", path, i, len);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--check"))
		return check(argv[2], (unsigned long)atoi(argv[3]) << 20);
	buf_len = (unsigned long)(argc > 1 ? atoi(argv[1]) : 64) << 20;
	buf = mmap(NULL, buf_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return perror("mmap"), 1;
	for (unsigned long i = 0; i < buf_len; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	ready();
	printf("len=%lu\n", buf_len);
	return 0;
}
