/*
 * Launch plans.
 *
 * bubblewrap applies its setup operations in the order given, and that
 * order is the security story, so it is built here in one place:
 *
 *  1. namespaces and process hygiene (new session, die with the engine,
 *     no capabilities; bwrap always sets no_new_privs);
 *  2. the base view: open mode binds / read-only, strict mode only the
 *     system roots; then a minimal /dev, a fresh /proc, a private /tmp;
 *  3. strict mode: the installation dir of each PATH entry outside the
 *     system roots, read-only (runtimes under $HOME, nvm and the like);
 *  4. folders granted by the policy, read-only or read-write;
 *  5. masks: credential stores and the state root are hidden (an empty
 *     tmpfs, or /dev/null for a file) wherever the view so far shows
 *     them, including inside a granted parent -- masks come after the
 *     grants so no grant can re-expose them;
 *  6. the app's own folders, read-write: install dir, the five data-dir
 *     spellings, its private TMPDIR -- after the masks because they live
 *     inside the state root; bwrap recreates the masked ancestors as
 *     empty directories, so each stays reachable by path;
 *  7. the per-app socket folder (network bridges) and the shim itself;
 *  8. the masks, and in strict mode the root (bwrap's tmpfs), remounted
 *     read-only, so what lies outside the binds cannot be written either
 *     (last, because bwrap creates the binds' mount points inside them).
 *
 * Paths keep their real names: every bind has source == destination.
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"
#include "xmalloc.h"

/* Read-only in strict mode; symlinks (merged /usr) are recreated. */
static const char *const plan_system_roots[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/opt", NULL
};

#define PLAN_STR2(x)	#x
#define PLAN_STR(x)	PLAN_STR2(x)

static void
plan_arg(struct plan *p, const char *a)
{
	p->argv = xreallocarray(p->argv, p->argc + 2, sizeof *p->argv);
	p->argv[p->argc++] = xstrdup(a);
	p->argv[p->argc] = NULL;
}

static void
plan_args(struct plan *p, const char *a, const char *b, const char *c)
{
	plan_arg(p, a);
	if (b != NULL)
		plan_arg(p, b);
	if (c != NULL)
		plan_arg(p, c);
}

static void
plan_envf(struct plan *p, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	p->env = xreallocarray(p->env, p->nenv + 2, sizeof *p->env);
	p->env[p->nenv++] = s;
	p->env[p->nenv] = NULL;
}

static void
plan_warn(struct plan *p, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	xvasprintf(&s, fmt, ap);
	va_end(ap);
	p->warnings = xreallocarray(p->warnings, p->nwarnings + 1,
	    sizeof *p->warnings);
	p->warnings[p->nwarnings++] = s;
}

static void
plan_grant(struct plan *p, const char *path, int rw, const char *why)
{
	p->grants = xreallocarray(p->grants, p->ngrants + 1,
	    sizeof *p->grants);
	p->grants[p->ngrants].path = xstrdup(path);
	p->grants[p->ngrants].rw = rw;
	p->grants[p->ngrants].why = why;
	p->ngrants++;
}

size_t
plan_own_dirs(const char *root, const char *sandbox_dir, const char *app_dir,
    const char *id, char **out, size_t max)
{
	static const char *const spellings[] = {
		"apps", "space-apps", "space-apps-data", "space-app-data"
	};
	size_t	n = 0, i;

	if (max < 7)
		return 0;
	out[n++] = xstrdup(app_dir);
	for (i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
		xasprintf(&out[n++], "%s/%s/%s", root, spellings[i], id);
	xasprintf(&out[n++], "%s/%s", root, id);
	xasprintf(&out[n++], "%s/app-tmp/%s", sandbox_dir, id);
	return n;
}

static int
plan_in_system_root(const char *path)
{
	size_t	i;

	for (i = 0; plan_system_roots[i] != NULL; i++) {
		if (path_within(path, plan_system_roots[i]))
			return 1;
	}
	return 0;
}

/* A folder the view shows: the base (open mode) or a bind (both modes). */
static int
plan_visible(const struct plan *p, const struct plan_input *in,
    const char *path)
{
	size_t	i;

	if (in->policy->read_mode == POLICY_READ_OPEN)
		return 1;
	for (i = 0; i < p->ngrants; i++) {
		if (path_within(path, p->grants[i].path))
			return 1;
	}
	return 0;
}

/*
 * Hide path: an empty directory or /dev/null for a file.  The empty
 * directory is made read-only at the very end (plan_remounts), once bwrap
 * has created the mount points of the binds that go inside it.
 */
static void
plan_mask(struct plan *p, const char *path)
{
	struct stat	st;
	char		real[PATH_MAX];

	if (lstat(path, &st) == -1)
		return;
	/* A store that is a symlink is hidden at its target. */
	if (S_ISLNK(st.st_mode)) {
		if (realpath(path, real) == NULL || stat(real, &st) == -1)
			return;
		path = real;
	}
	if (S_ISDIR(st.st_mode)) {
		plan_args(p, "--tmpfs", path, NULL);
		p->remounts = xreallocarray(p->remounts, p->nremounts + 1,
		    sizeof *p->remounts);
		p->remounts[p->nremounts++] = xstrdup(path);
	} else
		plan_args(p, "--ro-bind", "/dev/null", path);
}

/*
 * Last: the masks, and in strict mode the root (bwrap's own tmpfs),
 * become read-only, so nothing outside the binds can be written.
 */
static void
plan_remounts(struct plan *p, int root)
{
	size_t	i;

	for (i = 0; i < p->nremounts; i++)
		plan_args(p, "--remount-ro", p->remounts[i], NULL);
	if (root)
		plan_args(p, "--remount-ro", "/", NULL);
}

/* Step 2: what the app sees before any grant. */
static void
plan_base(struct plan *p, const struct plan_input *in)
{
	char		 target[PATH_MAX];
	struct stat	 st;
	ssize_t		 n;
	size_t		 i;

	if (in->policy->read_mode == POLICY_READ_OPEN)
		plan_args(p, "--ro-bind", "/", "/");
	else {
		for (i = 0; plan_system_roots[i] != NULL; i++) {
			const char *r = plan_system_roots[i];

			if (lstat(r, &st) == -1)
				continue;
			if (S_ISLNK(st.st_mode) && (n = readlink(r, target,
			    sizeof target - 1)) > 0) {
				target[n] = '\0';
				plan_args(p, "--symlink", target, r);
			} else if (S_ISDIR(st.st_mode))
				plan_args(p, "--ro-bind", r, r);
		}
	}
	plan_args(p, "--dev", "/dev", NULL);
	plan_args(p, "--proc", "/proc", NULL);
	plan_args(p, "--tmpfs", "/tmp", NULL);
	if (in->policy->read_mode == POLICY_READ_STRICT)
		plan_args(p, "--dir", in->genv.home, NULL);
}

/*
 * Step 3: a runtime installed under $HOME (nvm, pyenv, cargo) must stay
 * runnable in strict mode.  Each PATH entry outside the system roots
 * grants its parent read-only -- npm's bin/npm is a link into
 * ../lib/node_modules -- unless that parent is $HOME itself or above it,
 * where only the entry is granted.
 */
static void
plan_runtime(struct plan *p, const struct plan_input *in)
{
	char		*copy, *entry, *save = NULL, *slash;
	char		 real[PATH_MAX], grant[PATH_MAX], why[PATH_MAX];
	char		*dropped = NULL, *tmp, **drop = NULL;
	size_t		 i, n = 0, ndropped = 0;
	int		 dup;

	if (in->path_env == NULL)
		return;
	copy = xstrdup(in->path_env);
	for (entry = strtok_r(copy, ":", &save); entry != NULL;
	    entry = strtok_r(NULL, ":", &save)) {
		if (entry[0] != '/' || realpath(entry, real) == NULL ||
		    plan_in_system_root(real))
			continue;
		snprintf(grant, sizeof grant, "%s", real);
		if ((slash = strrchr(grant, '/')) != NULL && slash != grant)
			*slash = '\0';
		if (strcmp(grant, "/") == 0 || strcmp(grant, in->genv.home) ==
		    0 || path_is_ancestor(grant, in->genv.home))
			snprintf(grant, sizeof grant, "%s", real);
		if (guard_folder(&in->genv, grant, real, why,
		    sizeof why) == -1)
			continue;	/* home, a credential store, the root */
		dup = 0;
		for (i = 0; i < p->ngrants; i++)
			dup |= path_within(real, p->grants[i].path);
		for (i = 0; i < ndropped; i++)
			dup |= strcmp(real, drop[i]) == 0;
		if (dup)
			continue;
		if (n == PLAN_MAX_RUNTIME) {
			drop = xreallocarray(drop, ndropped + 1,
			    sizeof *drop);
			drop[ndropped] = xstrdup(real);
			ndropped++;
			xasprintf(&tmp, "%s%s%s", dropped != NULL ? dropped :
			    "", dropped != NULL ? ", " : "", real);
			free(dropped);
			dropped = tmp;
			continue;
		}
		plan_args(p, "--ro-bind", real, real);
		plan_grant(p, real, 0, "runtime on PATH");
		n++;
	}
	if (dropped != NULL) {
		plan_warn(p, "PATH has more than %d runtime folders; not "
		    "granted: %s", PLAN_MAX_RUNTIME, dropped);
		free(dropped);
	}
	for (i = 0; i < ndropped; i++)
		free(drop[i]);
	free(drop);
	free(copy);
}

static void
plan_namespaces(struct plan *p, const struct plan_input *in, int shim)
{
	plan_arg(p, in->bwrap);
	plan_args(p, "--die-with-parent", "--new-session", NULL);
	/* With the shim as PID 1; otherwise bwrap's own reaper is. */
	if (shim)
		plan_arg(p, "--as-pid-1");
	/* bwrap reports the shim's pid here, so a stop can signal it. */
	plan_args(p, "--info-fd", PLAN_STR(PLAN_INFO_FD), NULL);
	/* The system-call filter, installed before the first process. */
	if (in->seccomp)
		plan_args(p, "--seccomp", PLAN_STR(PLAN_SECCOMP_FD), NULL);
	if (!in->as_root)
		plan_args(p, "--unshare-user", "--disable-userns", NULL);
	plan_args(p, "--unshare-pid", "--unshare-ipc", "--unshare-uts");
	plan_arg(p, "--unshare-cgroup-try");
	if (p->netns)
		plan_arg(p, "--unshare-net");
	plan_args(p, "--cap-drop", "ALL", NULL);
	plan_args(p, "--hostname", "spacebox", NULL);
}

/* Steps 4 and 5. */
static void
plan_grants_and_masks(struct plan *p, const struct plan_input *in)
{
	const struct policy	*pol = in->policy;
	char			 path[PATH_MAX], real[PATH_MAX];
	size_t			 i;

	for (i = 0; i < pol->nfolders; i++) {
		plan_args(p, pol->folders[i].read_only ? "--ro-bind" :
		    "--bind", pol->folders[i].path, pol->folders[i].path);
		plan_grant(p, pol->folders[i].path, !pol->folders[i].read_only,
		    "granted");
	}
	/*
	 * A store is judged and hidden where it really is: ~/.aws may be a
	 * symlink, or sit under a symlinked ~/.config, into a granted tree.
	 */
	for (i = 0; guard_credential_stores[i] != NULL; i++) {
		snprintf(path, sizeof path, "%s/%s", in->genv.home,
		    guard_credential_stores[i]);
		if (realpath(path, real) == NULL)
			continue;
		if (plan_visible(p, in, path) || plan_visible(p, in, real))
			plan_mask(p, real);
	}
	if (plan_visible(p, in, in->genv.root))
		plan_mask(p, in->genv.root);
	/*
	 * The management socket's folder too: a socket is reached by its
	 * path whatever the network namespace, and the app runs as the
	 * engine's user.
	 */
	if (in->socket_dir != NULL && plan_visible(p, in, in->socket_dir) &&
	    !path_within(in->socket_dir, in->genv.root))
		plan_mask(p, in->socket_dir);
}

static void
plan_network_env(struct plan *p, const struct plan_input *in)
{
	static const char *const vars[] = {
		"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy",
		"ALL_PROXY", "all_proxy", NULL
	};
	size_t	i;

	if (in->policy->network != POLICY_NET_HOSTS || !in->policy->enabled)
		return;
	for (i = 0; vars[i] != NULL; i++)
		plan_envf(p, "%s=http://127.0.0.1:%d", vars[i],
		    in->proxy_port);
	plan_envf(p, "NO_PROXY=127.0.0.1,localhost,::1");
	plan_envf(p, "no_proxy=127.0.0.1,localhost,::1");
	plan_envf(p, "NODE_USE_ENV_PROXY=1");
}

static int
plan_has_env(const struct plan *p, const char *name)
{
	size_t	i, len = strlen(name);

	for (i = 0; i < p->nenv; i++) {
		if (strncmp(p->env[i], name, len) == 0 &&
		    p->env[i][len] == '=')
			return 1;
	}
	return 0;
}

/*
 * The environment is built from nothing: the engine's own variables
 * (API keys, tokens of other tools) never reach an app.
 */
static void
plan_environment(struct plan *p, const struct plan_input *in)
{
	const cJSON	*v;
	char		*tmpdir;

	plan_envf(p, "PATH=%s", in->path_env != NULL ? in->path_env :
	    "/usr/local/bin:/usr/bin:/bin");
	plan_envf(p, "HOME=%s", in->genv.home);
	plan_envf(p, "USER=%s", in->user != NULL ? in->user : "nobody");
	plan_envf(p, "LANG=%s", in->lang != NULL ? in->lang : "C.UTF-8");
	plan_envf(p, "TERM=dumb");
	plan_envf(p, "PORT=%d", in->port);
	plan_envf(p, "SENCLAW_HOME=%s", in->genv.root);
	plan_envf(p, "SENCLAW_BASE_URL=http://127.0.0.1:%d", in->api_port);
	plan_envf(p, "SENCLAW_SPACE_APP_ID=%s", in->app_id);
	plan_envf(p, "SENCLAW_SPACE_LOG_FILE=%s/space-apps-data/%s/app.log",
	    in->genv.root, in->app_id);
	/* No token without daemonApi: the API then refuses the app. */
	if (in->token != NULL && (in->policy->daemon_api ||
	    !in->policy->enabled))
		plan_envf(p, "SENCLAW_TOKEN_ACCESS_APP=%s", in->token);
	if (in->policy->enabled) {
		xasprintf(&tmpdir, "%s/app-tmp/%s", in->sandbox_dir,
		    in->app_id);
		plan_envf(p, "TMPDIR=%s", tmpdir);
		plan_envf(p, "TMP=%s", tmpdir);
		plan_envf(p, "TEMP=%s", tmpdir);
		free(tmpdir);
	}
	plan_network_env(p, in);
	/*
	 * The manifest may add variables but not replace the engine's: a
	 * PATH, a proxy or a token of its own choosing would undo the plan.
	 */
	if (in->app_env != NULL) {
		cJSON_ArrayForEach(v, in->app_env) {
			if (cJSON_IsString(v) && v->string != NULL &&
			    v->string[0] != '\0' &&
			    strchr(v->string, '=') == NULL &&
			    !plan_has_env(p, v->string))
				plan_envf(p, "%s=%s", v->string,
				    v->valuestring);
		}
	}
}

static void
plan_shim(struct plan *p, const struct plan_input *in)
{
	const struct policy	*pol = in->policy;
	char			 a[PATH_MAX + 16];
	size_t			 i;

	plan_arg(p, in->shim);
	if (p->netns) {
		snprintf(a, sizeof a, "%d:%d", PLAN_INBOUND_FD, in->port);
		plan_args(p, "--inbound", a, NULL);
		if (pol->network == POLICY_NET_HOSTS) {
			snprintf(a, sizeof a, "%d:%s/proxy.sock",
			    in->proxy_port, in->net_dir);
			plan_args(p, "--outbound", a, NULL);
		}
		if (pol->daemon_api) {
			snprintf(a, sizeof a, "%d:%s/api.sock", in->api_port,
			    in->net_dir);
			plan_args(p, "--outbound", a, NULL);
		}
		for (i = 0; i < pol->nloopback; i++) {
			snprintf(a, sizeof a, "%d:%s/lo-%d.sock",
			    pol->loopback[i], in->net_dir, pol->loopback[i]);
			plan_args(p, "--outbound", a, NULL);
		}
	}
	plan_args(p, "--", "/bin/sh", "-c");
	plan_arg(p, in->start);
}

static void
plan_summary(struct plan *p, const struct plan_input *in)
{
	const struct policy	*pol = in->policy;
	const char		*net;
	char			 buf[128];
	size_t			 i, granted = 0;

	if (!pol->enabled) {
		p->log_line = xstrdup("sandbox: off");
		return;
	}
	if (in->unconfined) {
		p->log_line = xstrdup("sandbox: UNCONFINED -- no usable "
		    "sandbox on this machine; the operator allowed apps to "
		    "run without one");
		return;
	}
	for (i = 0; i < p->ngrants; i++)
		granted += strcmp(p->grants[i].why, "granted") == 0;
	switch (pol->network) {
	case POLICY_NET_HOSTS:
		snprintf(buf, sizeof buf, "network via allowlist proxy on "
		    "127.0.0.1:%d", in->proxy_port);
		net = buf;
		break;
	case POLICY_NET_OFF:
		net = "network off";
		break;
	default:
		net = "network shared with the host (loopback not closed)";
		break;
	}
	xasprintf(&p->log_line, "sandbox: bubblewrap \xe2\x80\x94 %s reads, %s, "
	    "%zu folder(s) granted", policy_read_name(pol->read_mode), net,
	    granted);
}

/*
 * A command's environment: minimal, no engine or API variables at all.
 */
static void
plan_command_env(struct plan *p, const struct plan_input *in)
{
	plan_envf(p, "PATH=%s", in->path_env != NULL ? in->path_env :
	    "/usr/local/bin:/usr/bin:/bin");
	plan_envf(p, "HOME=%s", in->genv.home);
	plan_envf(p, "USER=%s", in->user != NULL ? in->user : "nobody");
	plan_envf(p, "LANG=%s", in->lang != NULL ? in->lang : "C.UTF-8");
	plan_envf(p, "TERM=dumb");
	if (in->tmp_dir != NULL) {
		plan_envf(p, "TMPDIR=%s", in->tmp_dir);
		plan_envf(p, "TMP=%s", in->tmp_dir);
		plan_envf(p, "TEMP=%s", in->tmp_dir);
	}
	if (in->port > 0)
		plan_envf(p, "PORT=%d", in->port);
	plan_network_env(p, in);
}

/*
 * A one-off command: the same namespaces, base and masks as a strict
 * app, then the project (read-write in workspace-write, read-only in
 * read-only) and its private TMPDIR; the argv runs as given.
 */
static int
plan_build_command(const struct plan_input *in, struct plan *p, char *err,
    size_t errlen)
{
	const struct policy	*pol = in->policy;
	char			 a[PATH_MAX + 16];
	size_t			 i;
	int			 shim;

	if (in->argv == NULL || in->argv[0] == NULL) {
		snprintf(err, errlen, "no command to run");
		return -1;
	}
	p->netns = !in->unconfined;
	plan_command_env(p, in);
	if (in->unconfined) {
		p->isolation = "unsandboxed";
		for (i = 0; in->argv[i] != NULL; i++)
			plan_arg(p, in->argv[i]);
		xasprintf(&p->log_line, "sandbox: UNSANDBOXED (%s)",
		    in->level != NULL ? in->level : "no sandbox");
		return 0;
	}
	if (in->shim == NULL || in->bwrap == NULL) {
		snprintf(err, errlen, "no sandbox helper available");
		return -1;
	}
	/*
	 * A command needs the shim only to bridge a port (a server, the
	 * broker); otherwise bwrap's own PID 1 will do, and a time limit
	 * kills the whole namespace through it.
	 */
	shim = in->port > 0 || pol->network == POLICY_NET_HOSTS;
	p->isolation = "bubblewrap";
	plan_namespaces(p, in, shim);
	plan_base(p, in);
	if (in->runtime_reads)
		plan_runtime(p, in);
	for (i = 0; i < in->nreads; i++) {
		plan_args(p, "--ro-bind", in->reads[i], in->reads[i]);
		plan_grant(p, in->reads[i], 0, "toolchain");
	}
	plan_args(p, in->project_rw ? "--bind" : "--ro-bind", in->project,
	    in->project);
	plan_grant(p, in->project, in->project_rw, "project");
	/* Masks after every grant, as for apps. */
	plan_grants_and_masks(p, in);
	if (in->tmp_dir != NULL) {
		plan_args(p, "--bind", in->tmp_dir, in->tmp_dir);
		plan_grant(p, in->tmp_dir, 1, "private TMPDIR");
	}
	if (in->net_dir != NULL)
		plan_args(p, "--ro-bind", in->net_dir, in->net_dir);
	if (shim)
		plan_args(p, "--ro-bind", in->shim, in->shim);
	plan_remounts(p, 1);
	plan_args(p, "--chdir", in->cwd != NULL ? in->cwd : in->project,
	    NULL);
	if (!shim)
		goto argv;
	plan_arg(p, in->shim);
	if (in->port > 0) {
		snprintf(a, sizeof a, "%d:%d", PLAN_INBOUND_FD, in->port);
		plan_args(p, "--inbound", a, NULL);
	}
	if (pol->network == POLICY_NET_HOSTS && in->net_dir != NULL) {
		snprintf(a, sizeof a, "%d:%s/proxy.sock", in->proxy_port,
		    in->net_dir);
		plan_args(p, "--outbound", a, NULL);
	}
argv:
	plan_arg(p, "--");
	for (i = 0; in->argv[i] != NULL; i++)
		plan_arg(p, in->argv[i]);
	xasprintf(&p->log_line, "sandbox: bubblewrap \xe2\x80\x94 %s, %s",
	    in->level != NULL ? in->level : "workspace-write",
	    pol->network == POLICY_NET_HOSTS ? "network via the broker" :
	    "no network");
	return 0;
}

int
plan_build(const struct plan_input *in, struct plan *p, char *err,
    size_t errlen)
{
	const struct policy	*pol = in->policy;
	char			*own[8];
	size_t			 nown, i;

	memset(p, 0, sizeof *p);
	if (in->command)
		return plan_build_command(in, p, err, errlen);
	if (in->start == NULL || in->start[0] == '\0') {
		snprintf(err, errlen, "the manifest has no runtime.start "
		    "command");
		return -1;
	}
	p->netns = pol->enabled && !in->unconfined &&
	    pol->network != POLICY_NET_ALL;
	plan_environment(p, in);

	if (!pol->enabled || in->unconfined) {
		/*
		 * No sandbox, but the shim still stands between the engine
		 * and the app: it forwards a stop to the app's group and
		 * waits for all of it, past the shell that started it.
		 */
		p->isolation = pol->enabled ? "unconfined" : "none";
		if (in->shim != NULL)
			plan_args(p, in->shim, "--", NULL);
		plan_args(p, "/bin/sh", "-c", in->start);
		plan_summary(p, in);
		return 0;
	}
	if (in->shim == NULL || in->bwrap == NULL) {
		snprintf(err, errlen, "no sandbox helper available");
		return -1;
	}
	p->isolation = "bubblewrap";
	plan_namespaces(p, in, 1);
	plan_base(p, in);
	if (pol->read_mode == POLICY_READ_STRICT)
		plan_runtime(p, in);
	plan_grants_and_masks(p, in);
	nown = plan_own_dirs(in->genv.root, in->sandbox_dir, in->app_dir,
	    in->app_id, own, 8);
	for (i = 0; i < nown; i++) {
		plan_args(p, "--bind", own[i], own[i]);
		plan_grant(p, own[i], 1, i == 0 ? "install dir" :
		    i == nown - 1 ? "private TMPDIR" : "data dir");
		free(own[i]);
	}
	if (p->netns && in->net_dir != NULL)
		plan_args(p, "--ro-bind", in->net_dir, in->net_dir);
	plan_args(p, "--ro-bind", in->shim, in->shim);
	plan_remounts(p, pol->read_mode == POLICY_READ_STRICT);
	plan_args(p, "--chdir", in->app_dir, NULL);
	plan_shim(p, in);
	plan_summary(p, in);
	return 0;
}

void
plan_free(struct plan *p)
{
	size_t	i;

	for (i = 0; i < p->argc; i++)
		free(p->argv[i]);
	free(p->argv);
	for (i = 0; i < p->nenv; i++)
		free(p->env[i]);
	free(p->env);
	for (i = 0; i < p->ngrants; i++)
		free(p->grants[i].path);
	free(p->grants);
	for (i = 0; i < p->nwarnings; i++)
		free(p->warnings[i]);
	free(p->warnings);
	for (i = 0; i < p->nremounts; i++)
		free(p->remounts[i]);
	free(p->remounts);
	free(p->log_line);
	memset(p, 0, sizeof *p);
}

cJSON *
plan_json(const struct plan *p)
{
	cJSON	*o, *a, *g;
	size_t	 i;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "isolation", p->isolation);
	cJSON_AddBoolToObject(o, "networkNamespace", p->netns);
	cJSON_AddStringToObject(o, "logLine", p->log_line);
	a = cJSON_AddArrayToObject(o, "argv");
	for (i = 0; i < p->argc; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->argv[i]));
	a = cJSON_AddArrayToObject(o, "env");
	for (i = 0; i < p->nenv; i++) {
		/* The token is a secret: show that it is there, not what. */
		if (strncmp(p->env[i], "SENCLAW_TOKEN_ACCESS_APP=", 25) == 0)
			cJSON_AddItemToArray(a, cJSON_CreateString(
			    "SENCLAW_TOKEN_ACCESS_APP=(hidden)"));
		else
			cJSON_AddItemToArray(a, cJSON_CreateString(p->env[i]));
	}
	a = cJSON_AddArrayToObject(o, "grants");
	for (i = 0; i < p->ngrants; i++) {
		g = cJSON_CreateObject();
		cJSON_AddStringToObject(g, "path", p->grants[i].path);
		cJSON_AddStringToObject(g, "access", p->grants[i].rw ?
		    "read-write" : "read-only");
		cJSON_AddStringToObject(g, "why", p->grants[i].why);
		cJSON_AddItemToArray(a, g);
	}
	a = cJSON_AddArrayToObject(o, "warnings");
	for (i = 0; i < p->nwarnings; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->warnings[i]));
	return o;
}
