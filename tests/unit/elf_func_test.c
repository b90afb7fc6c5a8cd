/*
 * elf_func (src/util/elf_func.c, elf_eh.c): the function around an
 * address, found in this test program's own file, by its symbols and,
 * stripped, by its unwind tables; C++-style landing pads (a cleanup
 * under -fexceptions, which the Makefile gives this test) seen there;
 * broken files that must give an error, never a crash or a wrong answer.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "util/elf_func.h"

/* A function of known size, not inlined, in this file. */
__attribute__((noinline)) int elf_func_test_target(int x)
{
	return x * 3 + 1;
}

static void release(int *p)
{
	__asm__ volatile("" : : "r"(p) : "memory");
}

static void (*volatile may_throw)(int *) = release;

/* A landing pad: the cleanup runs if may_throw unwinds (an LSDA says where). */
__attribute__((noinline)) int elf_func_test_pads(int x)
{
	int v __attribute__((cleanup(release))) = x;

	may_throw(&v);
	return v + 1;
}

/* The file offset of addr in this program's mapped file; 0: not found. */
static uint64_t file_off_of(const void *addr)
{
	uint64_t lo, hi, off, a = (uint64_t)(uintptr_t)addr, found = 0;
	char line[512];
	FILE *f = fopen("/proc/self/maps", "re");

	while (f && !found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %*s %" SCNx64, &lo, &hi, &off) == 3 &&
		    a >= lo && a < hi)
			found = a - lo + off;
	if (f)
		fclose(f);
	return found;
}

static int copy_to_tmp(const char *from, char *path, size_t cut, size_t poke_at, uint8_t poke)
{
	static uint8_t buf[1 << 22];
	int in = open(from, O_RDONLY), out;
	ssize_t n = in < 0 ? -1 : read(in, buf, sizeof(buf));

	if (in >= 0)
		close(in);
	if (n <= 0)
		return -1;
	if (cut && cut < (size_t)n)
		n = (ssize_t)cut;
	if (poke_at < (size_t)n)
		buf[poke_at] = poke;
	strcpy(path, "/tmp/elf_func_test.XXXXXX");
	out = mkstemp(path);
	if (out < 0 || write(out, buf, (size_t)n) != n)
		return -1;
	return out;
}

/* The same functions in a stripped copy: found by the unwind tables alone. */
static void stripped_checks(uint64_t off)
{
	uint64_t pads = file_off_of((const void *)elf_func_test_pads);
	struct elf_func sym, eh;
	char path[64], cmd[200];
	int fd = open("/proc/self/exe", O_RDONLY), sfd;

	is_int(elf_func_at(fd, off, &sym), 0, "by its symbol");
	ok(!sym.has_lsda, "... a plain function has no landing pads");
	is_int(elf_func_at(fd, pads + 2, &eh), 0, "a function with a cleanup");
	ok(eh.has_lsda, "... has landing pads (an LSDA)");
	close(fd);
	sfd = copy_to_tmp("/proc/self/exe", path, 0, (size_t)-1, 0);
	snprintf(cmd, sizeof(cmd), "objcopy --strip-all %s 2>/dev/null", path);
	if (sfd < 0 || system(cmd) != 0) {
		for (int i = 0; i < 4; i++)
			ok(1, "# SKIP no objcopy to strip with");
		return;
	}
	close(sfd);
	sfd = open(path, O_RDONLY);
	is_int(elf_func_at(sfd, off + 3, &eh), 0, "stripped: found by the unwind tables");
	ok(eh.start == sym.start && eh.size == sym.size && eh.offset == 3,
	   "... the same bounds as the symbol's (%#" PRIx64 ", %" PRIu64 " bytes)", eh.start,
	   eh.size);
	is_int(elf_func_at(sfd, pads, &eh), 0, "stripped: the function with a cleanup");
	ok(eh.has_lsda, "... its landing pads seen");
	close(sfd);
	srand(11);
	for (int i = 0; i < 300; i++) { /* a byte anywhere changed: tables included */
		struct stat st;
		int bfd;

		if (stat(path, &st) < 0)
			break;
		bfd = copy_to_tmp(path, cmd, 0, (size_t)rand() % (size_t)st.st_size,
				  (uint8_t)rand());
		if (bfd >= 0) {
			elf_func_at(bfd, off, &eh);
			close(bfd);
		}
		unlink(cmd);
	}
	ok(1, "stripped, 300 copies with a random byte changed: no crash");
	unlink(path);
}

int main(void)
{
	uint64_t off = file_off_of((const void *)elf_func_test_target);
	struct elf_func fn;
	char path[64];
	int fd = open("/proc/self/exe", O_RDONLY);

	if (!off || fd < 0) {
		printf("1..0 # SKIP cannot find this program's own code\n");
		return 0;
	}
	is_int(elf_func_at(fd, off, &fn), 0, "the function at its own address is found");
	is_int((int)fn.offset, 0, "... at offset 0 of it");
	ok(fn.size > 4 && fn.size < 256, "... with its size (%" PRIu64 ")", fn.size);
	is_int(elf_func_at(fd, off + 3, &fn), 0, "3 bytes in: the same function");
	is_int((int)fn.offset, 3, "... offset 3");
	is_int(elf_func_at(fd, 1ull << 40, &fn), -ENOENT, "an offset in no segment: -ENOENT");
	close(fd);

	fd = open("/proc/self/cmdline", O_RDONLY);
	is_int(elf_func_at(fd, 0, &fn), -ENOEXEC, "not an ELF file: -ENOEXEC");
	close(fd);

	/* broken copies: cut short, or a header byte changed; never a crash */
	static const size_t cuts[] = {10, 64, 100, 4096, 20000};
	int bad = 0;

	for (size_t i = 0; i < sizeof(cuts) / sizeof(cuts[0]); i++) {
		fd = copy_to_tmp("/proc/self/exe", path, cuts[i], (size_t)-1, 0);
		if (fd >= 0 && elf_func_at(fd, off, &fn) == 0 && cuts[i] < 20000)
			bad++;
		if (fd >= 0)
			close(fd);
		unlink(path);
	}
	ok(!bad, "cut short: an error, not an answer");
	stripped_checks(off);
	srand(7);
	for (int i = 0; i < 300; i++) {
		fd = copy_to_tmp("/proc/self/exe", path, 0, (size_t)(rand() % 64), (uint8_t)rand());
		if (fd >= 0) {
			elf_func_at(fd, off, &fn); /* anything but a crash */
			close(fd);
		}
		unlink(path);
	}
	ok(1, "300 headers with a random byte changed: no crash");
	return done_testing();
}
