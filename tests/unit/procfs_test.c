/*
 * The /proc questions of src/util/procfs.c (the FUSE tree, the rendezvous
 * sockets and vAttach ask them), asked about this test itself: what a pid is (process, thread,
 * kernel thread, gone), who may debug it, what a listing holds. No FUSE, no ptrace: only /proc.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/procfs.h"
#include "tap.h"

static pid_t thread_tid;
static pthread_barrier_t started, done;

static void *thread_main(void *arg)
{
	(void)arg;
	thread_tid = gettid();
	pthread_barrier_wait(&started);
	pthread_barrier_wait(&done);
	return NULL;
}

/* A kernel thread's pid (PF_KTHREAD in its flags), or 0. */
static pid_t find_kthread(void)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	pid_t found = 0;
	uid_t uid;
	gid_t gid;

	while (d && !found && (de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);

		if (pid > 0 && proc_kind(pid, &uid, &gid) == PROC_KTHREAD)
			found = pid;
	}
	if (d)
		closedir(d);
	return found;
}

static int yama_scope(void)
{
	FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
	int scope = 0;

	if (f && fscanf(f, "%d", &scope) != 1)
		scope = 0;
	if (f)
		fclose(f);
	return scope;
}

/* name (a decimal pid) is one of the NUL-separated names in b. */
static bool listed(const struct buf *b, pid_t pid)
{
	char name[16];

	snprintf(name, sizeof(name), "%d", pid);
	for (size_t at = 0; at < b->len; at += strlen(b->data + at) + 1)
		if (!strcmp(b->data + at, name))
			return true;
	return false;
}

int main(void)
{
	pthread_t th;
	uid_t uid = 12345;
	gid_t gid = 12345;
	struct proc_caller me, other;
	struct buf list;
	pid_t kthread;

	pthread_barrier_init(&started, NULL, 2);
	pthread_barrier_init(&done, NULL, 2);
	pthread_create(&th, NULL, thread_main, NULL);
	pthread_barrier_wait(&started);

	is_int(proc_kind(getpid(), &uid, &gid), PROC_LEADER, "this process is a leader");
	is_int((int)uid, (int)geteuid(), "its entries are owned by our effective uid");
	is_int((int)gid, (int)getegid(), "... and gid");
	is_int(proc_kind(thread_tid, &uid, &gid), PROC_THREAD, "our second thread is a thread");
	is_int(proc_tgid(thread_tid), getpid(), "whose process is ours");
	is_int(proc_tgid(getpid()), getpid(), "the leader's process is itself");
	is_int(proc_kind(999999999, &uid, &gid), PROC_NONE, "a pid that never was: none");
	is_int(proc_kind(0, &uid, &gid), PROC_NONE, "pid 0: none");
	is_int(proc_tgid(999999999), 0, "no process for a pid that never was");
	kthread = find_kthread();
	if (kthread)
		ok(kthread > 0, "a kernel thread is seen as one (%d)", kthread);
	else
		ok(1, "# SKIP no kernel thread visible");

	/* Yama's scope 1 would refuse a parent to a non-root child */
	me = proc_caller(gettid(), geteuid(), getegid());
	is_int(proc_may_debug(&me, getppid()), geteuid() == 0 || yama_scope() == 0 ? 0 : -EACCES,
	       "we may debug our parent (same user, or root)");
	other = proc_caller(0, geteuid() + 1, getegid());
	is_int(proc_may_debug(&other, getppid()), -EACCES, "another uid, no capability: may not");
	other = proc_caller(0, geteuid(), getegid() + 1);
	is_int(proc_may_debug(&other, getppid()), -EACCES,
	       "the same uid with another gid, no capability: may not");
	/* the same ids, no CAP_SYS_PTRACE: the target's capabilities decide */
	other = (struct proc_caller){.tgid = 0, .uid = geteuid(), .gid = getegid()};
	other.cap_prm = ~0ull;
	is_int(proc_may_debug(&other, getppid()), yama_scope() == 0 ? 0 : -EACCES,
	       "the same ids, every capability the target has: may");
	other.cap_prm = 0;
	is_int(proc_may_debug(&other, getppid()), geteuid() == 0 ? -EACCES : 0,
	       "the same ids, none of the capabilities the target (root) has: may not");

	buf_init(&list);
	proc_list_debuggable(&list, &me);
	ok(list.len > 0 && list.data[list.len - 1] == '\0', "the listing is NUL-separated names");
	ok(listed(&list, getppid()), "it holds our parent");
	ok(!listed(&list, getpid()), "not ourselves (the daemon cannot debug itself)");
	ok(!listed(&list, thread_tid), "not a thread");
	ok(!kthread || !listed(&list, kthread), "not a kernel thread");
	buf_free(&list);

	pthread_barrier_wait(&done);
	pthread_join(th, NULL);
	return done_testing();
}
