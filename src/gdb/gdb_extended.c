/*
 * gdb_extended.c: extended-remote: '!', vRun and the settings gdb
 * sends before a run (environment, working directory, shell, ASLR).
 *
 * gdb_launch() is also how the daemon starts the program named on its own
 * command line, so both paths start programs the same way. The settings
 * are this file's (s->run), so no other handler changes them.
 */
#include "gdb_int.h"
#include "gdb_launch.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* What the next launch of a session is given, and what its last one ran. */
struct gdb_run {
	char **env; /* environment (QEnvironment*), NULL-terminated */
	size_t env_len;
	char *cwd;		 /* QSetWorkingDir, NULL = ours */
	char **last_argv;	 /* what the last launch ran, for 'R' */
	bool no_aslr;		 /* QDisableRandomization */
	bool startup_with_shell; /* QStartupWithShell */
};

static void env_free(struct gdb_run *r)
{
	for (size_t i = 0; r->env && r->env[i]; i++)
		free(r->env[i]);
	free(r->env);
	r->env = NULL;
	r->env_len = 0;
}

/* Start again from the environment utraced was started with. */
static void env_reset(struct gdb_run *r)
{
	size_t n = 0;

	env_free(r);
	while (environ[n])
		n++;
	r->env = calloc(n + 1, sizeof(*r->env));
	if (!r->env)
		return;
	for (size_t i = 0; i < n; i++)
		r->env[i] = strdup(environ[i]);
	r->env_len = n;
}

/* Remove NAME (the part of var up to '=' or its end). */
static void env_unset(struct gdb_run *r, const char *var)
{
	size_t n = strcspn(var, "=");

	for (size_t i = 0; i < r->env_len; i++) {
		if (strncmp(r->env[i], var, n) || r->env[i][n] != '=')
			continue;
		free(r->env[i]);
		memmove(&r->env[i], &r->env[i + 1], (r->env_len - i) * sizeof(*r->env));
		r->env_len--;
		return;
	}
}

static int env_set(struct gdb_run *r, const char *var)
{
	char **grown;

	if (!strchr(var, '='))
		return -EINVAL;
	env_unset(r, var);
	grown = realloc(r->env, (r->env_len + 2) * sizeof(*r->env));
	if (!grown)
		return -ENOMEM;
	r->env = grown;
	r->env[r->env_len++] = strdup(var);
	r->env[r->env_len] = NULL;
	return 0;
}

/* A session's settings, as gdbserver starts with them (one small object: aborts as buf does). */
void gdb_extended_init(struct gdb_session *s)
{
	struct gdb_run *r = calloc(1, sizeof(*r));

	if (!r)
		abort();
	env_reset(r);
	r->no_aslr = true;
	r->startup_with_shell = s->server ? s->server->startup_with_shell : true;
	s->run = r;
}

void gdb_extended_free(struct gdb_session *s)
{
	struct gdb_run *r = s->run;

	if (!r)
		return;
	env_free(r);
	gdb_launch_argv_free(r->last_argv);
	free(r->cwd);
	free(r);
	s->run = NULL;
}

static void remember_argv(struct gdb_run *r, char *const prog[])
{
	size_t n = 0;

	gdb_launch_argv_free(r->last_argv);
	while (prog[n])
		n++;
	r->last_argv = calloc(n + 1, sizeof(*r->last_argv));
	for (size_t i = 0; r->last_argv && i < n; i++)
		r->last_argv[i] = strdup(prog[i]);
}

struct engine *gdb_launch(struct gdb_session *s, char *const prog[], struct engine_launch_err *why)
{
	struct gdb_run *r = s->run;
	const char *shell = NULL;
	struct engine_launch l = {.env = r->env, .cwd = r->cwd};
	struct engine *e;
	char **argv;

	if (r->startup_with_shell) {
		shell = getenv("SHELL");
		if (!shell || !*shell)
			shell = "/bin/sh";
	}
	l.flags = (r->no_aslr ? ENGINE_LAUNCH_NO_ASLR : 0) |
		  (s->server && s->server->stdio ? ENGINE_LAUNCH_STDIO : 0);
	argv = gdb_launch_argv(prog, s->server ? s->server->wrapper : NULL, shell, &l.execs);
	if (!argv) {
		*why = (struct engine_launch_err){.err = -ENOMEM, .exit_code = -1};
		return NULL;
	}
	l.argv = argv;
	e = engine_launch(s->tracer, &l, &s->client, why);
	gdb_launch_argv_free(argv);
	if (e && prog != (char *const *)r->last_argv)
		remember_argv(r, prog);
	return e;
}

/* 'R': run the last program again, with the same arguments. No reply. */
int gdb_handle_restart(struct gdb_session *s, const char *p, size_t len)
{
	struct engine_launch_err why;
	struct engine *e;

	(void)p;
	(void)len;
	if (!s->run->last_argv || gdb_session_foreign(s))
		return GDB_NO_REPLY;
	gdb_kill_process(s);
	e = gdb_launch(s, s->run->last_argv, &why);
	if (e) {
		fprintf(stderr, "Process %s created; pid = %d\n", s->run->last_argv[0],
			engine_pid(e));
		gdb_session_set_engine(s, e);
	}
	return GDB_NO_REPLY;
}

/* Decode one hex field [p, end) into a new string; NULL if malformed. */
/* A copy of path with a leading ~ or ~user replaced by that home directory. */
static char *tilde_expand(const char *path)
{
	const char *rest = path + 1 + strcspn(path + 1, "/");
	const char *home = NULL;
	char *name, *out;
	struct passwd *pw;

	if (path[0] != '~')
		return strdup(path);
	name = strndup(path + 1, (size_t)(rest - path - 1));
	if (!name)
		return NULL;
	pw = *name ? getpwnam(name) : getpwuid(getuid());
	if (!*name)
		home = getenv("HOME");
	if (!home && pw)
		home = pw->pw_dir;
	free(name);
	if (!home)
		return strdup(path);
	if (asprintf(&out, "%s%s", home, rest) < 0)
		return NULL;
	return out;
}

static char *hex_string(const char *p, const char *end)
{
	size_t n = (size_t)(end - p) / 2;
	char *str;

	if ((end - p) % 2)
		return NULL;
	str = malloc(n + 1);
	if (!str)
		return NULL;
	if (rsp_hex_decode(p, (size_t)(end - p), (uint8_t *)str, n) < 0 || memchr(str, 0, n)) {
		free(str);
		return NULL;
	}
	str[n] = '\0';
	return str;
}

/* vRun;PROG;ARG... (hex) into a NULL-terminated argv; PROG may be empty. */
static char **parse_vrun(const char *p, const char *end, size_t *argc)
{
	size_t n = 1, k = 0;
	char **argv;

	for (const char *q = p; q < end; q++)
		n += *q == ';';
	argv = calloc(n + 1, sizeof(*argv));
	if (!argv)
		return NULL;
	for (const char *q = p; k < n; k++) {
		const char *semi = memchr(q, ';', (size_t)(end - q));

		if (!semi)
			semi = end;
		argv[k] = hex_string(q, semi);
		if (!argv[k])
			goto bad;
		q = semi + 1;
	}
	*argc = n;
	return argv;
bad:
	gdb_launch_argv_free(argv);
	return NULL;
}

void gdb_adopt(struct gdb_session *s, struct engine *e)
{
	gdb_session_set_engine(s, e);
	s->detached = false;
	s->killed = false;
	gdb_stop_reply(s, &s->last, &s->reply);
}

int gdb_handle_vrun(struct gdb_session *s, const char *p, size_t len)
{
	const char *q = p + strlen("vRun;"), *end = p + len;
	size_t argc;
	char **argv;
	struct engine_launch_err why;
	struct engine *e;

	if (len < strlen("vRun;"))
		return -EINVAL;
	if (gdb_session_foreign(s))
		return -EPERM; /* it would run as utraced's user (root), not the client's */
	argv = parse_vrun(q, end, &argc);
	if (!argv)
		return -EINVAL;
	if (!argv[0][0] && s->server && (s->server->last_program || s->server->program)) {
		/* no name (gdb's run in an inferior without exec-file): the last one, as gdbserver
		 */
		free(argv[0]);
		argv[0] = strdup(s->server->last_program ? s->server->last_program
							 : s->server->program);
	}
	if (!s->multiprocess)
		gdb_kill_process(s); /* gdb's "run" again: the old one goes */
	/* (with multiprocess, a new inferior's run: the others stay, as with gdbserver) */
	e = argv[0] && argv[0][0] ? gdb_launch(s, argv, &why) : NULL;
	if (e)
		fprintf(stderr, "Process %s created; pid = %d\n", argv[0], engine_pid(e));
	if (e && s->server) {
		free(s->server->last_program);
		s->server->last_program = strdup(argv[0]);
	}
	gdb_launch_argv_free(argv);
	if (!e)
		return -ENOENT;
	gdb_adopt(s, e);
	return 0;
}

int gdb_handle_extended(struct gdb_session *s, const char *p, size_t len)
{
	(void)p;
	(void)len;
	s->extended = true;
	buf_puts(&s->reply, "OK");
	return 0;
}

/* "Qname:VALUE" settings that shape the next vRun. */
int gdb_handle_run_setting(struct gdb_session *s, const char *p, size_t len)
{
	struct gdb_run *r = s->run;
	const char *colon = memchr(p, ':', len), *end = p + len;
	char *val = NULL;
	int err = 0;

	if (!strcmp(p, "QEnvironmentReset")) {
		env_reset(r);
		goto ok;
	}
	if (!colon)
		return -EINVAL;
	if (!strncmp(p, "QDisableRandomization:", 22) || !strncmp(p, "QStartupWithShell:", 18)) {
		bool on = colon[1] == '1';

		if (end - colon != 2 || (colon[1] != '0' && colon[1] != '1'))
			return -EINVAL;
		if (p[1] == 'D')
			r->no_aslr = on;
		else
			r->startup_with_shell = on;
		goto ok;
	}
	val = hex_string(colon + 1, end);
	if (!val)
		return -EINVAL;
	if (!strncmp(p, "QEnvironmentHexEncoded:", 23)) {
		err = env_set(r, val);
	} else if (!strncmp(p, "QEnvironmentUnset:", 18)) {
		env_unset(r, val);
	} else { /* QSetWorkingDir: empty = the default; ~ expanded, as gdbserver does */
		free(r->cwd);
		r->cwd = *val ? tilde_expand(val) : NULL;
		if (*val && !r->cwd)
			err = -ENOMEM;
	}
	free(val);
	if (err)
		return err;
ok:
	buf_puts(&s->reply, "OK");
	return 0;
}
