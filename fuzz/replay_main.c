/*
 * replay_main.c: a main() for the fuzz harnesses without libFuzzer, so
 * that `make check` replays the committed corpora with the ordinary
 * compiler (gcc on CI) and no clang. Each file named on the command line
 * (or each file in a directory named there) goes once through
 * LLVMFuzzerTestOneInput(); a crash or abort ends the run, which is the
 * failure the test reports (fuzz/replay.t).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

/* The whole file in a malloc'd buffer of exactly its size, as libFuzzer gives it. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) < 0)
		goto out;
	/* malloc(0) may return NULL: ask for one byte, hand over none */
	data = malloc(n ? (size_t)n : 1);
	if (data && fread(data, 1, (size_t)n, f) != (size_t)n) {
		free(data);
		data = NULL;
	}
	*len = (size_t)n;
out:
	fclose(f);
	return data;
}

static int replay_file(const char *path)
{
	size_t len = 0;
	uint8_t *data = slurp(path, &len);

	if (!data) {
		fprintf(stderr, "replay: cannot read %s\n", path);
		return -1;
	}
	LLVMFuzzerTestOneInput(data, len);
	free(data);
	return 0;
}

static int replay_dir(const char *dir, unsigned *n)
{
	struct dirent **names;
	char path[4096];
	int count = scandir(dir, &names, NULL, alphasort);
	int ret = 0;

	if (count < 0) {
		fprintf(stderr, "replay: cannot list %s\n", dir);
		return -1;
	}
	for (int i = 0; i < count; i++) {
		if (names[i]->d_name[0] != '.' && ret == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
			ret = replay_file(path);
			(*n)++;
		}
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	unsigned n = 0;
	struct stat st;

	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	for (int i = 1; i < argc; i++) {
		int ret;

		if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) {
			ret = replay_dir(argv[i], &n);
		} else {
			ret = replay_file(argv[i]);
			n++;
		}
		if (ret < 0)
			return 2;
	}
	fprintf(stderr, "replay: %u inputs, no crash\n", n);
	return 0;
}
