/*
 * One-off commands.
 *
 * A request names an argv and the client's project folder.  The engine
 * checks the project (never /, $HOME, above $HOME, or holding a credential
 * store), builds a command plan at its level (workspace-write: the project
 * and a private TMPDIR writable, system and toolchain readable, no
 * network; read-only: nothing writable; full-access: no sandbox) and runs
 * it.  A foreground command is answered when it ends, with at most 64 KiB
 * of output (the rest counted) and after at most the engine's time limit
 * (the whole process group is killed).  Background jobs run on and are
 * listed.  A server, and a command to run outside the sandbox, wait for a
 * person's approval of exactly that command; nothing approves them
 * automatically.  With a broker, a command's network goes through its own
 * allowlist proxy, and the result lists what it reached and what was
 * refused.
 */
#include <sys/queue.h>
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec.h"
#include "filter.h"
#include "launch.h"
#include "log.h"
#include "plan.h"
#include "proxy.h"
#include "xmalloc.h"

#define EXEC_MAX_ARGS	256
#define EXEC_KEEP_DONE	64	/* finished jobs remembered */

enum job_state {
	JOB_PENDING,		/* waiting for an approval */
	JOB_RUNNING,
	JOB_DONE,
	JOB_DENIED
};

static const char *const job_state_names[] = {
	"pending", "running", "done", "denied"
};

struct job_waiter {
	struct server_conn		*conn;
	LIST_ENTRY(job_waiter)		 entry;
};

/*
 * One command.  Created by a request, kept (finished) until
 * EXEC_KEEP_DONE newer ones ended; all strings owned.
 */
struct job {
	int			 id;
	struct engine		*engine;
	char			**argv;
	char			*cmdline;
	char			*project;
	char			*cwd;
	char			*reason;
	int			 background;
	int			 server;
	int			 outside;
	int			 timeout;	/* seconds, 0: none */
	enum job_state		 state;

	struct launch		 l;
	uv_timer_t		 timer;
	int			 port;		/* server */
	struct proxy		*proxy;		/* broker */
	char			*net_dir;
	char			*tmp_dir;
	const char		*isolation;
	char			*log_line;

	char			*out;
	size_t			 outlen;
	uint64_t		 dropped;
	uint64_t		 started_ms;
	uint64_t		 ended_ms;
	int			 exit_code;
	int			 signal;
	int			 timed_out;
	cJSON			*reached;
	cJSON			*refused;

	LIST_HEAD(, job_waiter)	 waiters;
	TAILQ_ENTRY(job)	 entry;
};

static TAILQ_HEAD(, job)	 jobs = TAILQ_HEAD_INITIALIZER(jobs);
static int			 job_next_id = 1;

static const char *
exec_level(struct engine *e)
{
	return e->local_sandbox != NULL ? e->local_sandbox : "workspace-write";
}

/* Startup options. */

static int
exec_add_read(struct engine *e, const char *path, int quiet_missing,
    char *err, size_t errlen)
{
	char		real[PATH_MAX], store[PATH_MAX];
	struct stat	st;

	if (path[0] != '/') {
		snprintf(err, errlen, "--local-sandbox-read \"%s\": give an "
		    "absolute path", path);
		return -1;
	}
	if (realpath(path, real) == NULL || stat(real, &st) == -1) {
		if (quiet_missing)
			return 0;
		snprintf(err, errlen, "--local-sandbox-read \"%s\": does not "
		    "exist", path);
		return -1;
	}
	if (strcmp(real, "/") == 0 || strcmp(real, e->genv.home) == 0 ||
	    path_is_ancestor(real, e->genv.home)) {
		snprintf(err, errlen, "--local-sandbox-read \"%s\": your home "
		    "folder (or what holds it) is never readable by commands; "
		    "list the folders inside it that they need", path);
		return -1;
	}
	if (guard_in_credential_store(&e->genv, real, store)) {
		snprintf(err, errlen, "--local-sandbox-read \"%s\": inside the "
		    "credential store %s, which commands may never read", path,
		    store);
		return -1;
	}
	if (path_within(real, e->genv.root)) {
		snprintf(err, errlen, "--local-sandbox-read \"%s\": inside the "
		    "engine's state root %s", path, e->genv.root);
		return -1;
	}
	e->exec_reads = xreallocarray(e->exec_reads, e->nexec_reads + 1,
	    sizeof *e->exec_reads);
	e->exec_reads[e->nexec_reads++] = xstrdup(real);
	return 0;
}

int
exec_reads_parse(struct engine *e, const char *spec, char *err,
    size_t errlen)
{
	static const char *const toolchain[] = {
		".npm", ".nvm", ".cargo", ".rustup", "go", ".gitconfig",
		".config/git", NULL
	};
	char	*copy, *item, *save = NULL, path[PATH_MAX];
	size_t	 i;
	int	 rv = 0;

	copy = xstrdup(spec);
	for (item = strtok_r(copy, ",", &save); item != NULL && rv == 0;
	    item = strtok_r(NULL, ",", &save)) {
		if (strcmp(item, "toolchain") != 0) {
			rv = exec_add_read(e, item, 0, err, errlen);
			continue;
		}
		/* The runtimes on the engine's PATH, and the usual caches. */
		e->exec_runtime_reads = 1;
		for (i = 0; toolchain[i] != NULL && rv == 0; i++) {
			snprintf(path, sizeof path, "%s/%s", e->genv.home,
			    toolchain[i]);
			rv = exec_add_read(e, path, 1, err, errlen);
		}
	}
	free(copy);
	return rv;
}

int
exec_hosts_parse(struct engine *e, const char *list, char *err,
    size_t errlen)
{
	char	*copy, *item, *save = NULL;
	int	 rv = 0;

	copy = xstrdup(list);
	for (item = strtok_r(copy, ",", &save); item != NULL && rv == 0;
	    item = strtok_r(NULL, ",", &save))
		rv = policy_add_host(&e->exec_policy, item, err, errlen);
	free(copy);
	e->exec_policy.enabled = 1;
	e->exec_policy.network = POLICY_NET_HOSTS;
	return rv;
}

/* Jobs. */

static struct job *
job_find(const char *id)
{
	struct job	*j;
	char		*end;
	long		 n;

	n = strtol(id, &end, 10);
	if (*end != '\0' || n <= 0)
		return NULL;
	TAILQ_FOREACH(j, &jobs, entry) {
		if (j->id == n)
			return j;
	}
	return NULL;
}

static cJSON *
job_json(struct job *j, int with_output)
{
	cJSON	*o, *a, *pj, *stats;
	size_t	 i;

	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "jobId", j->id);
	cJSON_AddStringToObject(o, "state", job_state_names[j->state]);
	a = cJSON_AddArrayToObject(o, "argv");
	for (i = 0; j->argv[i] != NULL; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(j->argv[i]));
	cJSON_AddStringToObject(o, "command", j->cmdline);
	cJSON_AddStringToObject(o, "project", j->project);
	cJSON_AddStringToObject(o, "kind", j->outside ? "outside" :
	    j->server ? "server" : j->background ? "background" :
	    "foreground");
	if (j->reason != NULL)
		cJSON_AddStringToObject(o, "reason", j->reason);
	cJSON_AddStringToObject(o, "sandbox", j->isolation);
	cJSON_AddStringToObject(o, "level", exec_level(j->engine));
	if (j->log_line != NULL)
		cJSON_AddStringToObject(o, "logLine", j->log_line);
	if (j->port > 0)
		cJSON_AddNumberToObject(o, "port", j->port);
	if (j->state == JOB_RUNNING || j->state == JOB_DONE)
		cJSON_AddNumberToObject(o, "runtimeMs", (double)((j->state ==
		    JOB_DONE ? j->ended_ms : uv_now(j->engine->loop)) -
		    j->started_ms));
	if (j->state == JOB_DONE) {
		cJSON_AddNumberToObject(o, "exitCode", j->exit_code);
		if (j->signal != 0)
			cJSON_AddNumberToObject(o, "signal", j->signal);
		cJSON_AddBoolToObject(o, "timedOut", j->timed_out);
	}
	cJSON_AddNumberToObject(o, "outputBytes", (double)j->outlen +
	    (double)j->dropped);
	cJSON_AddNumberToObject(o, "droppedBytes", (double)j->dropped);
	if (with_output)
		cJSON_AddStringToObject(o, "output", j->out != NULL ? j->out :
		    "");
	if (j->proxy != NULL) {
		/* A running job's broker: what it reached and was refused. */
		pj = proxy_json(j->proxy);
		stats = cJSON_GetObjectItemCaseSensitive(pj, "stats");
		cJSON_AddItemToObject(o, "hostsReached",
		    cJSON_DetachItemFromObject(stats, "reached"));
		cJSON_AddItemToObject(o, "hostsRefused",
		    cJSON_DetachItemFromObject(stats, "recentDenied"));
		cJSON_Delete(pj);
	}
	if (j->reached != NULL)
		cJSON_AddItemToObject(o, "hostsReached",
		    cJSON_Duplicate(j->reached, 1));
	if (j->refused != NULL)
		cJSON_AddItemToObject(o, "hostsRefused",
		    cJSON_Duplicate(j->refused, 1));
	return o;
}

static void
job_event(struct job *j)
{
	cJSON	*ev;

	ev = job_json(j, 0);
	cJSON_AddStringToObject(ev, "event", j->state == JOB_PENDING ?
	    "approval" : "job");
	engine_publish(j->engine, ev);
}

static void
job_waiter_gone(struct server_conn *c, void *arg)
{
	struct job_waiter	*w = arg;

	LIST_REMOVE(w, entry);
	free(w);
}

/* Hold the request; it is answered when the job changes state. */
static void
job_wait(struct job *j, struct server_conn *c)
{
	struct job_waiter	*w;

	w = xcalloc(1, sizeof *w);
	w->conn = c;
	c->on_close = job_waiter_gone;
	c->on_close_arg = w;
	LIST_INSERT_HEAD(&j->waiters, w, entry);
}

/*
 * Answer the held requests once the job is where they wait for: a
 * foreground command when it has ended, anything else once it has left
 * the approval queue.
 */
static void
job_wake(struct job *j)
{
	struct job_waiter	*w;
	int			 fg = !j->background && !j->server;

	if (j->state == JOB_PENDING || (fg && j->state == JOB_RUNNING))
		return;
	while ((w = LIST_FIRST(&j->waiters)) != NULL) {
		LIST_REMOVE(w, entry);
		w->conn->on_close = NULL;
		server_reply(w->conn, 200, job_json(j, 1));
		free(w);
	}
}

static void
job_free(struct job *j)
{
	size_t	i;

	for (i = 0; j->argv[i] != NULL; i++)
		free(j->argv[i]);
	free(j->argv);
	free(j->cmdline);
	free(j->project);
	free(j->cwd);
	free(j->reason);
	free(j->net_dir);
	free(j->tmp_dir);
	free(j->log_line);
	free(j->out);
	cJSON_Delete(j->reached);
	cJSON_Delete(j->refused);
	free(j);
}

static void
job_timer_closed(uv_handle_t *h)
{
	job_free(h->data);
}

/* Forget the oldest finished jobs beyond EXEC_KEEP_DONE. */
static void
job_prune(void)
{
	struct job	*j, *next;
	int		 done = 0;

	for (j = TAILQ_FIRST(&jobs); j != NULL; j = TAILQ_NEXT(j, entry))
		done += j->state == JOB_DONE || j->state == JOB_DENIED;
	for (j = TAILQ_FIRST(&jobs); j != NULL && done > EXEC_KEEP_DONE;
	    j = next) {
		next = TAILQ_NEXT(j, entry);
		if ((j->state != JOB_DONE && j->state != JOB_DENIED) ||
		    !LIST_EMPTY(&j->waiters))
			continue;
		TAILQ_REMOVE(&jobs, j, entry);
		uv_close((uv_handle_t *)&j->timer, job_timer_closed);
		done--;
	}
}

static void
job_output(void *arg, const char *data, size_t len)
{
	struct job	*j = arg;
	size_t		 keep, i;

	keep = j->outlen < EXEC_OUTPUT_MAX ? EXEC_OUTPUT_MAX - j->outlen : 0;
	if (keep > len)
		keep = len;
	if (keep > 0) {
		j->out = xreallocarray(j->out, j->outlen + keep + 1, 1);
		memcpy(j->out + j->outlen, data, keep);
		/* Output is text for JSON: a NUL would cut it short. */
		for (i = j->outlen; i < j->outlen + keep; i++) {
			if (j->out[i] == '\0')
				j->out[i] = '?';
		}
		j->outlen += keep;
		j->out[j->outlen] = '\0';
	}
	j->dropped += len - keep;
}

static void
job_exited(void *arg, int64_t status, int sig)
{
	struct job	*j = arg;
	cJSON		*pj, *stats;

	j->ended_ms = uv_now(j->engine->loop);
	j->exit_code = sig != 0 ? 128 + sig : (int)status;
	j->signal = sig;
	uv_timer_stop(&j->timer);
	if (j->proxy != NULL) {
		pj = proxy_json(j->proxy);
		stats = cJSON_GetObjectItemCaseSensitive(pj, "stats");
		j->reached = cJSON_DetachItemFromObject(stats, "reached");
		j->refused = cJSON_DetachItemFromObject(stats,
		    "recentDenied");
		cJSON_Delete(pj);
		proxy_stop(j->proxy);
		j->proxy = NULL;
	}
	if (j->tmp_dir != NULL)
		paths_rmtree(j->tmp_dir);
	j->state = JOB_DONE;
	log_info("job %d (%s) ended: %s %d%s", j->id, j->cmdline,
	    sig != 0 ? "signal" : "exit", sig != 0 ? sig : (int)status,
	    j->timed_out ? ", timed out" : "");
	job_event(j);
	job_wake(j);
	job_prune();
}

static void
job_timeout(uv_timer_t *t)
{
	struct job	*j = t->data;

	/* The whole group goes: the sandbox's PID 1, or the group. */
	j->timed_out = 1;
	launch_signal(&j->l, SIGKILL);
}

/* The project must be a folder a command may be given to write. */
static int
exec_project(struct engine *e, const char *in, char *out, char *err,
    size_t errlen)
{
	char	why[PATH_MAX + 128], path[PATH_MAX], real[PATH_MAX];
	size_t	i;

	if (guard_folder(&e->genv, in, out, why, sizeof why) == -1) {
		snprintf(err, errlen, "project \"%s\": %s", in, why);
		return -1;
	}
	/*
	 * Refused: a project that holds one of this user's credential
	 * stores (by name or where a symlinked store really is), or that
	 * looks like a home of its own (a .ssh, .aws ... at its top).
	 */
	for (i = 0; guard_credential_stores[i] != NULL; i++) {
		snprintf(path, sizeof path, "%s/%s", e->genv.home,
		    guard_credential_stores[i]);
		if ((access(path, F_OK) == 0 && path_within(path, out)) ||
		    (realpath(path, real) != NULL && path_within(real, out))) {
			snprintf(err, errlen, "project \"%s\": holds the "
			    "credential store %s; run commands in a folder "
			    "that does not", in, path);
			return -1;
		}
		snprintf(path, sizeof path, "%s/%s", out,
		    guard_credential_stores[i]);
		if (access(path, F_OK) == 0) {
			snprintf(err, errlen, "project \"%s\": holds %s, a "
			    "credential store; run commands in a folder that "
			    "does not", in, path);
			return -1;
		}
	}
	if (path_is_ancestor(out, e->genv.root)) {
		snprintf(err, errlen, "project \"%s\": holds the engine's "
		    "state root %s", in, e->genv.root);
		return -1;
	}
	return 0;
}

static int
job_start(struct job *j, char *err, size_t errlen)
{
	struct engine		*e = j->engine;
	struct plan_input	 in;
	struct plan		 plan;
	struct policy		 pol;
	const char		*level = exec_level(e);
	char			*path, self[PATH_MAX], *slash;
	int			 lfd = -1, sfd = -1, rv = -1, full, unsandboxed;
	ssize_t			 n;

	full = strcmp(level, "full-access") == 0 || j->outside;
	unsandboxed = !full && !e->bwrap_ok;
	/* A fresh private TMPDIR, never one an earlier job used. */
	xasprintf(&path, "%s/exec-tmp", e->paths.sandbox_dir);
	paths_mkdirs(path, 0700);
	free(path);
	xasprintf(&j->tmp_dir, "%s/exec-tmp/job%d-XXXXXX",
	    e->paths.sandbox_dir, j->id);
	if (mkdtemp(j->tmp_dir) == NULL) {
		snprintf(err, errlen, "cannot create %s: %s", j->tmp_dir,
		    strerror(errno));
		return -1;
	}
	policy_init(&pol);
	pol.enabled = 1;
	pol.read_mode = POLICY_READ_STRICT;
	pol.daemon_api = 0;
	pol.network = POLICY_NET_OFF;

	memset(&in, 0, sizeof in);
	in.command = 1;
	in.argv = j->argv;
	in.project = j->project;
	in.cwd = j->cwd;
	in.project_rw = strcmp(level, "read-only") != 0;
	in.tmp_dir = in.project_rw ? j->tmp_dir : NULL;
	in.reads = e->exec_reads;
	in.nreads = e->nexec_reads;
	in.runtime_reads = e->exec_runtime_reads;
	in.level = j->outside ? "outside the sandbox" : level;
	in.policy = &pol;
	in.genv = e->genv;
	in.sandbox_dir = e->paths.sandbox_dir;
	in.path_env = getenv("PATH");
	in.user = getenv("USER") != NULL ? getenv("USER") : getenv("LOGNAME");
	in.lang = getenv("LANG");
	in.bwrap = e->bwrap;
	in.socket_dir = e->socket_dir;
	in.as_root = geteuid() == 0;
	in.seccomp = 1;
	in.unconfined = full || unsandboxed;
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) > 0 &&
	    (self[n] = '\0', slash = strrchr(self, '/')) != NULL) {
		*slash = '\0';
		xasprintf(&path, "%s/spacebox-shim", self);
		in.shim = path;
	} else
		path = NULL;

	if (j->server && !in.unconfined) {
		if ((lfd = launch_listen(&j->port, err, errlen)) == -1)
			goto out;
		in.port = j->port;
	} else if (j->server) {
		/* Unsandboxed: the server binds a free port itself. */
		if ((lfd = launch_listen(&j->port, err, errlen)) == -1)
			goto out;
		close(lfd);
		lfd = -1;
		in.port = j->port;
	}
	if (e->exec_broker && !in.unconfined) {
		xasprintf(&j->net_dir, "%s/exec-net/%d", e->paths.sandbox_dir,
		    j->id);
		if (paths_mkdirs(j->net_dir, 0700) == -1) {
			snprintf(err, errlen, "cannot create %s: %s",
			    j->net_dir, strerror(errno));
			goto out;
		}
		pol.network = POLICY_NET_HOSTS;
		pol.nhosts = e->exec_policy.nhosts;
		memcpy(pol.hosts, e->exec_policy.hosts, sizeof pol.hosts);
		snprintf(self, sizeof self, "exec-%d", j->id);
		if ((j->proxy = proxy_start(e->loop, self, &pol,
		    &e->proxy_limits, NULL, NULL, err, errlen)) == NULL)
			goto out;
		snprintf(self, sizeof self, "%s/proxy.sock", j->net_dir);
		if (proxy_listen_unix(j->proxy, self, err, errlen) == -1)
			goto out;
		in.net_dir = j->net_dir;
		in.proxy_port = proxy_port(j->proxy);
	}
	if (plan_build(&in, &plan, err, errlen) == -1)
		goto out;
	j->isolation = full ? (j->outside ? "outside the sandbox" :
	    "full-access") : unsandboxed ? "unsandboxed" : "bubblewrap";
	free(j->log_line);
	j->log_line = xstrdup(plan.log_line);
	j->l.on_output = job_output;
	j->l.on_exit = job_exited;
	j->l.arg = j;
	if (strcmp(plan.isolation, "bubblewrap") == 0 &&
	    (sfd = filter_fd(err, errlen)) == -1) {
		plan_free(&plan);
		goto out;
	}
	rv = launch_start(e->loop, &j->l, &plan, j->cwd, lfd, sfd, err,
	    errlen);
	if (sfd != -1)
		close(sfd);
	plan_free(&plan);
	if (rv == 0) {
		j->state = JOB_RUNNING;
		j->started_ms = uv_now(e->loop);
		if (j->timeout > 0)
			uv_timer_start(&j->timer, job_timeout,
			    (uint64_t)j->timeout * 1000, 0);
		log_info("job %d: %s: %s", j->id, j->log_line, j->cmdline);
	}
out:
	/* pol borrowed the broker's hosts: do not free them twice. */
	pol.nhosts = 0;
	policy_free(&pol);
	free(path);
	if (lfd != -1)
		close(lfd);
	if (rv == -1 && j->proxy != NULL) {
		proxy_stop(j->proxy);
		j->proxy = NULL;
	}
	return rv;
}

/* Routes. */

static int
exec_bool(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

/* Build a job from a request body; NULL after answering 400. */
static struct job *
exec_job_new(struct api_req *req, const cJSON *b)
{
	struct engine	*e = req->engine;
	const cJSON	*argv, *v;
	struct job	*j;
	char		 project[PATH_MAX], err[PATH_MAX + 256];
	char		*cmd, *t;
	size_t		 n = 0;

	argv = cJSON_GetObjectItemCaseSensitive(b, "argv");
	if (!cJSON_IsArray(argv) || cJSON_GetArraySize(argv) == 0 ||
	    cJSON_GetArraySize(argv) > EXEC_MAX_ARGS) {
		server_reply_error(req->conn, 400, "argv: give the command as "
		    "a list of 1 to %d strings", EXEC_MAX_ARGS);
		return NULL;
	}
	cJSON_ArrayForEach(v, argv) {
		if (!cJSON_IsString(v)) {
			server_reply_error(req->conn, 400, "argv[%zu]: must be "
			    "a string", n);
			return NULL;
		}
		n++;
	}
	v = cJSON_GetObjectItemCaseSensitive(b, "cwd");
	if (!cJSON_IsString(v)) {
		server_reply_error(req->conn, 400, "cwd: the project folder "
		    "is required");
		return NULL;
	}
	if (exec_project(e, v->valuestring, project, err, sizeof err) ==
	    -1) {
		server_reply_error(req->conn, 400, "%s", err);
		return NULL;
	}
	j = xcalloc(1, sizeof *j);
	j->engine = e;
	j->id = job_next_id++;
	j->argv = xcalloc(n + 1, sizeof *j->argv);
	n = 0;
	cmd = xstrdup("");
	cJSON_ArrayForEach(v, argv) {
		j->argv[n++] = xstrdup(v->valuestring);
		xasprintf(&t, "%s%s%s", cmd, cmd[0] != '\0' ? " " : "",
		    v->valuestring);
		free(cmd);
		cmd = t;
	}
	j->cmdline = cmd;
	j->project = xstrdup(project);
	j->cwd = xstrdup(project);
	j->background = exec_bool(b, "background");
	j->server = exec_bool(b, "server");
	j->outside = exec_bool(b, "outside");
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(b, "reason")))
		j->reason = xstrdup(v->valuestring);
	/* Foreground commands have a limit; a request may only lower it. */
	j->timeout = j->background || j->server ? 0 : e->exec_timeout;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(b,
	    "timeoutSecs")) && v->valuedouble >= 1 &&
	    v->valuedouble < j->timeout)
		j->timeout = (int)v->valuedouble;
	j->isolation = "none";
	LIST_INIT(&j->waiters);
	uv_timer_init(e->loop, &j->timer);
	j->timer.data = j;
	return j;
}

void
api_exec_run(struct api_req *req)
{
	struct engine	*e = req->engine;
	struct job	*j;
	cJSON		*b;
	char		 err[1024];
	const char	*level = exec_level(e);

	if ((b = api_body_json(req)) == NULL)
		return;
	if ((j = exec_job_new(req, b)) == NULL) {
		cJSON_Delete(b);
		return;
	}
	cJSON_Delete(b);
	if (j->outside && j->reason == NULL) {
		server_reply_error(req->conn, 400, "reason: say why this "
		    "command must run outside the sandbox (--reason)");
		uv_close((uv_handle_t *)&j->timer, job_timer_closed);
		return;
	}
	if (!j->outside && strcmp(level, "full-access") != 0 &&
	    !e->bwrap_ok && !e->unsandboxed_commands) {
		server_reply_error(req->conn, 503, "commands cannot be "
		    "sandboxed here, so they are refused: %s; or run spaceboxd "
		    "--unsandboxed-commands allow", e->bwrap_note != NULL ?
		    e->bwrap_note : "bubblewrap is unusable");
		uv_close((uv_handle_t *)&j->timer, job_timer_closed);
		return;
	}
	TAILQ_INSERT_TAIL(&jobs, j, entry);
	if (j->server || j->outside) {
		/* A person approves exactly this command, or nothing runs. */
		j->state = JOB_PENDING;
		j->isolation = j->outside ? "outside the sandbox" :
		    !e->bwrap_ok && strcmp(level, "full-access") != 0 ?
		    "unsandboxed" : strcmp(level, "full-access") == 0 ?
		    "full-access" : "bubblewrap";
		log_info("job %d waits for approval: %s%s%s", j->id,
		    j->cmdline, j->reason != NULL ? " -- reason: " : "",
		    j->reason != NULL ? j->reason : "");
		job_event(j);
		server_reply(req->conn, 202, job_json(j, 0));
		return;
	}
	if (job_start(j, err, sizeof err) == -1) {
		j->state = JOB_DENIED;
		server_reply_error(req->conn, 500, "%s", err);
		return;
	}
	job_event(j);
	if (j->background)
		server_reply(req->conn, 200, job_json(j, 0));
	else
		job_wait(j, req->conn);
}

void
api_exec_list(struct api_req *req)
{
	struct job	*j;
	cJSON		*o, *a;

	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, "jobs");
	TAILQ_FOREACH(j, &jobs, entry)
		cJSON_AddItemToArray(a, job_json(j, 0));
	server_reply(req->conn, 200, o);
}

static struct job *
exec_job(struct api_req *req)
{
	struct job	*j;

	if ((j = job_find(req->params[0])) == NULL)
		server_reply_error(req->conn, 404, "no job %.20s",
		    req->params[0]);
	return j;
}

void
api_exec_get(struct api_req *req)
{
	struct job	*j;

	if ((j = exec_job(req)) == NULL)
		return;
	if (req->query != NULL && strstr(req->query, "wait=1") != NULL &&
	    (j->state == JOB_PENDING || (j->state == JOB_RUNNING &&
	    !j->background && !j->server)))
		job_wait(j, req->conn);
	else
		server_reply(req->conn, 200, job_json(j, 1));
}

/* The :id job if it waits for an approval; else answered, NULL. */
static struct job *
exec_pending(struct api_req *req)
{
	struct job	*j;

	if ((j = exec_job(req)) != NULL && j->state != JOB_PENDING) {
		server_reply_error(req->conn, 409, "job %d is not waiting for "
		    "an approval (it is %s)", j->id,
		    job_state_names[j->state]);
		return NULL;
	}
	return j;
}

void
api_exec_approve(struct api_req *req)
{
	struct job	*j;
	char		 err[1024];

	if ((j = exec_pending(req)) == NULL)
		return;
	log_info("job %d approved: %s", j->id, j->cmdline);
	if (job_start(j, err, sizeof err) == -1) {
		j->state = JOB_DENIED;
		job_event(j);
		job_wake(j);
		server_reply_error(req->conn, 500, "%s", err);
		return;
	}
	job_event(j);
	job_wake(j);
	server_reply(req->conn, 200, job_json(j, 0));
}

void
api_exec_deny(struct api_req *req)
{
	struct job	*j;

	if ((j = exec_pending(req)) == NULL)
		return;
	log_info("job %d denied: %s", j->id, j->cmdline);
	j->state = JOB_DENIED;
	job_event(j);
	job_wake(j);
	server_reply(req->conn, 200, job_json(j, 0));
	job_prune();
}

void
api_exec_stop(struct api_req *req)
{
	struct job	*j;

	if ((j = exec_job(req)) == NULL)
		return;
	if (j->state == JOB_PENDING) {
		j->state = JOB_DENIED;
		job_event(j);
		job_wake(j);
	} else if (j->state == JOB_RUNNING)
		launch_signal(&j->l, SIGKILL);
	server_reply(req->conn, 200, job_json(j, 0));
}

/* Temporary folders left by jobs of an engine that did not stop cleanly. */
void
exec_sweep(struct engine *e)
{
	char	*path;

	xasprintf(&path, "%s/exec-tmp", e->paths.sandbox_dir);
	paths_rmtree(path);
	free(path);
}

void
exec_shutdown(struct engine *e)
{
	struct job	*j;

	TAILQ_FOREACH(j, &jobs, entry) {
		if (j->state == JOB_RUNNING)
			launch_signal(&j->l, SIGKILL);
	}
}
