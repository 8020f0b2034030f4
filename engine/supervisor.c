/*
 * Supervision of apps.
 *
 * start:  policy -> plan -> bridges (proxy, engine API, loopback ports)
 *         -> uv_spawn (own session and process group) -> poll the health
 *         path every 250 ms for up to 30 s -> running
 * stop:   SIGTERM to the shim (PID 1 of the sandbox, which forwards it to
 *         the app's group) or to the group, 5 s grace, SIGKILL
 * crash:  background apps come back after 1 s, 2 s, 4 s ... 60 s (reset
 *         after 60 s up), and are marked failed after 5 crashes in two
 *         minutes; session apps just stop
 * idle:   a session app with no established connection to its port for
 *         runtime.idleTimeoutSecs is stopped (the sockets are read from
 *         /proc/<pid>/net/tcp, which shows the app's own namespace)
 *
 * Output goes to an engine-owned log, outside anything the app can
 * write, rotated by size.
 */
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "log.h"
#include "filter.h"
#include "launch.h"
#include "plan.h"
#include "relay.h"
#include "store.h"
#include "supervisor.h"
#include "xmalloc.h"

#define SV_IDLE_CHECK_MS	5000

/*
 * One app's runtime.  Created on first use, kept for the engine's life;
 * the process, its pipes and bridges exist only while it runs.
 */
struct sv_app {
	char			*id;
	struct engine		*engine;
	enum sv_state		 state;
	int			 restart_pending; /* start again on exit */

	struct launch		 l;		/* the running process */
	int			 port;
	int			 log_fd;
	char			*log_path;

	uv_timer_t		 timer;		/* health, backoff, grace */
	uv_timer_t		 idle;
	uv_tcp_t		*probe;
	uint64_t		 started_ms;
	uint64_t		 running_ms;
	uint64_t		 last_active_ms;
	int			 idle_secs;
	int			 background;
	char			*health_path;

	int			 restarts;
	int			 backoff;	/* next delay, seconds */
	uint64_t		 crashes[SV_CRASH_LIMIT];
	size_t			 ncrashes;
	char			*last_exit;
	char			*error;		/* why it is not running */

	struct policy		 launched;	/* policy at launch */
	int			 have_launched;
	const char		*isolation;
	int			 netns;
	char			*log_line;
	char			*token;
	char			*net_dir;
	cJSON			*grants;

	struct server_listener	*api_bridge;
	struct relay_listener	*lo_bridges[POLICY_MAX_LOOPBACK];
	size_t			 nlo;

	LIST_ENTRY(sv_app)	 entry;
};

static LIST_HEAD(, sv_app)	 sv_apps = LIST_HEAD_INITIALIZER(sv_apps);
static void			(*sv_done)(struct engine *);

static void	sv_launch(struct sv_app *);
static void	sv_idle_tick(uv_timer_t *);
static void	sv_stop_now(struct sv_app *);
static void	sv_check_shutdown(struct engine *);

static uint64_t
sv_now(struct sv_app *a)
{
	return uv_now(a->engine->loop);
}

static struct sv_app *
sv_find(struct engine *e, const char *id, int create)
{
	struct sv_app	*a;

	LIST_FOREACH(a, &sv_apps, entry) {
		if (strcmp(a->id, id) == 0)
			return a;
	}
	if (!create)
		return NULL;
	a = xcalloc(1, sizeof *a);
	a->id = xstrdup(id);
	a->engine = e;
	a->log_fd = -1;
	a->backoff = 1;
	policy_init(&a->launched);
	uv_timer_init(e->loop, &a->timer);
	uv_timer_init(e->loop, &a->idle);
	a->timer.data = a->idle.data = a;
	LIST_INSERT_HEAD(&sv_apps, a, entry);
	return a;
}

static const char *const sv_state_names[] = {
	"stopped", "starting", "running", "backoff", "stopping", "failed"
};

static void
sv_event(struct sv_app *a)
{
	cJSON	*ev = cJSON_CreateObject();

	cJSON_AddStringToObject(ev, "event", "status");
	cJSON_AddStringToObject(ev, "appId", a->id);
	cJSON_AddStringToObject(ev, "state", sv_state_names[a->state]);
	if (a->error != NULL)
		cJSON_AddStringToObject(ev, "error", a->error);
	engine_publish(a->engine, ev);
}

static void
sv_set_state(struct sv_app *a, enum sv_state s)
{
	a->state = s;
	sv_event(a);
}

static void
sv_set_error(struct sv_app *a, const char *msg)
{
	free(a->error);
	a->error = msg != NULL ? xstrdup(msg) : NULL;
}

/* Logs: engine-owned, rotated by size. */

char *
supervisor_log_path(struct engine *e, const char *id)
{
	char	*p;

	xasprintf(&p, "%s/%s.log", e->paths.log_dir, id);
	return p;
}

static void
sv_log_open(struct sv_app *a)
{
	if (a->log_fd != -1)
		return;
	if (a->log_path == NULL)
		a->log_path = supervisor_log_path(a->engine, a->id);
	paths_mkdirs(a->engine->paths.log_dir, 0700);
	a->log_fd = open(a->log_path, O_WRONLY | O_APPEND | O_CREAT |
	    O_CLOEXEC | O_NOFOLLOW, 0600);
	if (a->log_fd == -1)
		log_warn("%s", a->log_path);
}

static void
sv_log_rotate(struct sv_app *a)
{
	char	 from[PATH_MAX], to[PATH_MAX];
	int	 i;

	close(a->log_fd);
	a->log_fd = -1;
	for (i = SV_LOG_KEEP - 1; i >= 1; i--) {
		snprintf(from, sizeof from, "%s.%d", a->log_path, i);
		snprintf(to, sizeof to, "%s.%d", a->log_path, i + 1);
		rename(from, to);
	}
	snprintf(to, sizeof to, "%s.1", a->log_path);
	rename(a->log_path, to);
	sv_log_open(a);
}

static void
sv_log_write(struct sv_app *a, const char *data, size_t len)
{
	struct stat	st;
	ssize_t		n;

	sv_log_open(a);
	if (a->log_fd == -1)
		return;
	while (len > 0) {
		if ((n = write(a->log_fd, data, len)) <= 0) {
			if (n == -1 && errno == EINTR)
				continue;
			break;
		}
		data += n;
		len -= (size_t)n;
	}
	if (fstat(a->log_fd, &st) == 0 && st.st_size > SV_LOG_MAX)
		sv_log_rotate(a);
}

static void
sv_log_line(struct sv_app *a, const char *line)
{
	char		 stamp[32], *s;
	time_t		 now = time(NULL);
	struct tm	 tm;

	gmtime_r(&now, &tm);
	strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
	xasprintf(&s, "[spacebox %s] %s\n", stamp, line);
	sv_log_write(a, s, strlen(s));
	server_follow(a->id, s, strlen(s));
	free(s);
}

static void
sv_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	static char	slab[65536];

	buf->base = slab;
	buf->len = sizeof slab;
}

static void
sv_output(void *arg, const char *data, size_t len)
{
	struct sv_app	*a = arg;

	sv_log_write(a, data, len);
	server_follow(a->id, data, len);
}

/* Bridges: what crosses into an app's own network namespace. */

static void
sv_bridges_close(struct sv_app *a)
{
	size_t	i;

	if (a->api_bridge != NULL) {
		server_close(a->api_bridge);
		a->api_bridge = NULL;
	}
	for (i = 0; i < a->nlo; i++)
		relay_close(a->lo_bridges[i]);
	a->nlo = 0;
	engine_proxy_stop(a->engine, a->id);
}

static int
sv_bridges_open(struct sv_app *a, struct engine_app *ea, int *pport,
    char *err, size_t errlen)
{
	struct engine		*e = a->engine;
	const struct policy	*p = &ea->policy;
	struct proxy		*px;
	char			*path;
	size_t			 i;
	int			 rv;

	*pport = 0;
	if (p->network == POLICY_NET_HOSTS && p->enabled) {
		if (engine_proxy_start(e, ea, &px, err, errlen) != 0)
			return -1;
		*pport = proxy_port(px);
		if (a->netns) {
			xasprintf(&path, "%s/proxy.sock", a->net_dir);
			rv = proxy_listen_unix(px, path, err, errlen);
			free(path);
			if (rv == -1)
				return -1;
		}
	}
	if (!a->netns)
		return 0;
	if (p->daemon_api) {
		xasprintf(&path, "%s/api.sock", a->net_dir);
		a->api_bridge = server_listen_unix(e, path, a->id,
		    appapi_routes, appapi_nroutes, err, errlen);
		free(path);
		if (a->api_bridge == NULL)
			return -1;
	}
	for (i = 0; i < p->nloopback; i++) {
		xasprintf(&path, "%s/lo-%d.sock", a->net_dir, p->loopback[i]);
		a->lo_bridges[a->nlo] = relay_unix_to_tcp(e->loop, path,
		    p->loopback[i], err, errlen);
		free(path);
		if (a->lo_bridges[a->nlo] == NULL)
			return -1;
		a->nlo++;
	}
	return 0;
}

/* Health. */

struct sv_probe {
	uv_tcp_t	 tcp;
	uv_connect_t	 connect;
	uv_write_t	 write;
	struct sv_app	*app;
	char		*req;
	char		 buf[16];
	size_t		 n;
};

static void
sv_probe_closed(uv_handle_t *h)
{
	struct sv_probe	*pr = (struct sv_probe *)h;

	free(pr->req);
	free(pr);
}

static void
sv_probe_close(struct sv_app *a)
{
	if (a->probe == NULL)
		return;
	uv_close((uv_handle_t *)a->probe, sv_probe_closed);
	a->probe = NULL;
}

static void
sv_became_running(struct sv_app *a)
{
	char	line[128];

	sv_probe_close(a);
	uv_timer_stop(&a->timer);
	a->running_ms = a->last_active_ms = sv_now(a);
	snprintf(line, sizeof line, "running on 127.0.0.1:%d", a->port);
	sv_log_line(a, line);
	sv_set_error(a, NULL);
	sv_set_state(a, SV_RUNNING);
	if (!a->background)
		uv_timer_start(&a->idle, sv_idle_tick, SV_IDLE_CHECK_MS, 0);
}

static void
sv_probe_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct sv_probe	*pr = (struct sv_probe *)s;
	struct sv_app	*a = pr->app;
	size_t		 n;
	int		 status;

	if (a->probe != &pr->tcp)
		return;
	if (nread < 0) {
		sv_probe_close(a);
		return;
	}
	n = (size_t)nread;
	if (n > sizeof pr->buf - 1 - pr->n)
		n = sizeof pr->buf - 1 - pr->n;
	memcpy(pr->buf + pr->n, buf->base, n);
	pr->n += n;
	pr->buf[pr->n] = '\0';
	if (pr->n < 12)
		return;
	/* "HTTP/1.x NNN": any answer below 500 means it is serving. */
	if (strncmp(pr->buf, "HTTP/1.", 7) == 0 &&
	    sscanf(pr->buf + 9, "%3d", &status) == 1 && status < 500 &&
	    a->state == SV_STARTING)
		sv_became_running(a);
	else
		sv_probe_close(a);
}

static void
sv_probe_written(uv_write_t *req, int status)
{
}

static void
sv_probe_connected(uv_connect_t *req, int status)
{
	struct sv_probe	*pr = req->data;
	struct sv_app	*a = pr->app;
	uv_buf_t	 b;

	if (a->probe != &pr->tcp)
		return;
	if (status < 0) {
		sv_probe_close(a);
		return;
	}
	xasprintf(&pr->req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
	    "User-Agent: spaceboxd-health\r\nConnection: close\r\n\r\n",
	    a->health_path, a->port);
	b = uv_buf_init(pr->req, (unsigned int)strlen(pr->req));
	if (uv_write(&pr->write, (uv_stream_t *)&pr->tcp, &b, 1,
	    sv_probe_written) != 0 || uv_read_start((uv_stream_t *)&pr->tcp,
	    sv_alloc, sv_probe_read) != 0)
		sv_probe_close(a);
}

static void
sv_health_tick(uv_timer_t *t)
{
	struct sv_app		*a = t->data;
	struct sv_probe		*pr;
	struct sockaddr_in	 sin;
	char			 msg[160];

	if (a->state != SV_STARTING)
		return;
	if (sv_now(a) - a->started_ms > SV_HEALTH_BUDGET_MS) {
		snprintf(msg, sizeof msg, "did not answer on 127.0.0.1:%d%s "
		    "within %d s", a->port, a->health_path,
		    SV_HEALTH_BUDGET_MS / 1000);
		sv_log_line(a, msg);
		sv_set_error(a, msg);
		sv_stop_now(a);
		return;
	}
	sv_probe_close(a);
	pr = xcalloc(1, sizeof *pr);
	pr->app = a;
	uv_tcp_init(a->engine->loop, &pr->tcp);
	a->probe = &pr->tcp;
	uv_ip4_addr("127.0.0.1", a->port, &sin);
	pr->connect.data = pr;
	if (uv_tcp_connect(&pr->connect, &pr->tcp, (struct sockaddr *)&sin,
	    sv_probe_connected) != 0)
		sv_probe_close(a);
}

/* Idle session apps. */

/* 1 when /proc/<pid>/net/tcp{,6} shows an established conn to port. */
static int
sv_port_busy(pid_t pid, int port)
{
	static const char *const files[] = { "tcp", "tcp6" };
	char		 path[64], line[512];
	unsigned int	 lport, st;
	size_t		 i;
	FILE		*f;
	int		 busy = 0;

	for (i = 0; i < 2 && !busy; i++) {
		snprintf(path, sizeof path, "/proc/%d/net/%s", (int)pid,
		    files[i]);
		if ((f = fopen(path, "re")) == NULL)
			continue;
		while (!busy && fgets(line, sizeof line, f) != NULL) {
			/* "  0: 0100007F:1F90 0100007F:C350 01 ..." */
			if (sscanf(line, " %*d: %*[0-9A-Fa-f]:%x "
			    "%*[0-9A-Fa-f]:%*x %x", &lport, &st) == 2 &&
			    (int)lport == port && st == 1)
				busy = 1;
		}
		fclose(f);
	}
	return busy;
}

static void
sv_idle_tick(uv_timer_t *t)
{
	struct sv_app	*a = t->data;
	pid_t		 pid = a->l.shim_pid != 0 ? a->l.shim_pid : a->l.pid;

	if (a->state != SV_RUNNING || a->background)
		return;
	if (sv_port_busy(pid, a->port))
		a->last_active_ms = sv_now(a);
	else if (sv_now(a) - a->last_active_ms >=
	    (uint64_t)a->idle_secs * 1000) {
		sv_log_line(a, "idle: stopping the session app");
		supervisor_stop(a->engine, a->id, NULL, 0);
		return;
	}
	uv_timer_start(&a->idle, sv_idle_tick, SV_IDLE_CHECK_MS, 0);
}

/* Exit and restart. */

static void
sv_backoff_tick(uv_timer_t *t)
{
	struct sv_app	*a = t->data;

	if (a->state == SV_BACKOFF)
		sv_launch(a);
}

static void
sv_exited(void *arg, int64_t status, int sig)
{
	struct sv_app	*a = arg;
	uint64_t	 now = sv_now(a);
	char		 msg[256];
	size_t		 i, recent;
	int		 crashed;

	free(a->last_exit);
	if (sig != 0)
		xasprintf(&a->last_exit, "signal %d", sig);
	else
		xasprintf(&a->last_exit, "exit %" PRId64, status);
	snprintf(msg, sizeof msg, "exited (%s)", a->last_exit);
	sv_log_line(a, msg);

	uv_timer_stop(&a->timer);
	uv_timer_stop(&a->idle);
	sv_probe_close(a);
	sv_bridges_close(a);
	free(a->token);
	a->token = NULL;

	crashed = a->state == SV_STARTING || a->state == SV_RUNNING;
	if (!crashed || !a->background || a->error != NULL) {
		if (a->state == SV_STARTING && a->error == NULL)
			sv_set_error(a, msg);
		sv_set_state(a, SV_STOPPED);
		if (a->restart_pending && sv_done == NULL) {
			a->restart_pending = 0;
			supervisor_start(a->engine, a->id, msg, sizeof msg);
		}
		sv_check_shutdown(a->engine);
		return;
	}

	/* A background app that ran a minute earns a fresh backoff. */
	if (a->running_ms != 0 && now - a->running_ms >= 60000)
		a->backoff = 1;
	memmove(&a->crashes[1], &a->crashes[0],
	    (SV_CRASH_LIMIT - 1) * sizeof a->crashes[0]);
	a->crashes[0] = now;
	if (a->ncrashes < SV_CRASH_LIMIT)
		a->ncrashes++;
	for (i = recent = 0; i < a->ncrashes; i++)
		recent += now - a->crashes[i] <= SV_CRASH_WINDOW_MS;
	if (recent >= SV_CRASH_LIMIT) {
		snprintf(msg, sizeof msg, "failed: %d crashes in %d s, last "
		    "%s; start it again when fixed", SV_CRASH_LIMIT,
		    SV_CRASH_WINDOW_MS / 1000, a->last_exit);
		sv_log_line(a, msg);
		sv_set_error(a, msg);
		sv_set_state(a, SV_FAILED);
		return;
	}
	snprintf(msg, sizeof msg, "crashed (%s); restarting in %d s",
	    a->last_exit, a->backoff);
	sv_log_line(a, msg);
	a->restarts++;
	uv_timer_start(&a->timer, sv_backoff_tick, (uint64_t)a->backoff * 1000,
	    0);
	a->backoff = a->backoff * 2 > SV_BACKOFF_MAX ? SV_BACKOFF_MAX :
	    a->backoff * 2;
	sv_set_state(a, SV_BACKOFF);
}

/* Launch. */

static char *
sv_token(void)
{
	unsigned char	 raw[24];
	char		*t;
	size_t		 i;
	int		 fd;

	if ((fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)) == -1 ||
	    read(fd, raw, sizeof raw) != (ssize_t)sizeof raw)
		fatal("cannot read /dev/urandom");
	close(fd);
	t = xmalloc(sizeof raw * 2 + 1);
	for (i = 0; i < sizeof raw; i++)
		snprintf(t + i * 2, 3, "%02x", raw[i]);
	return t;
}

static char *
sv_shim_path(void)
{
	char	self[PATH_MAX], *slash, *p;
	ssize_t	n;

	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) <= 0)
		return NULL;
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) == NULL)
		return NULL;
	*slash = '\0';
	xasprintf(&p, "%s/spacebox-shim", self);
	if (access(p, X_OK) == 0)
		return p;
	free(p);
	return NULL;
}

static int
sv_make_dirs(struct sv_app *a, struct engine_app *ea, char *err,
    size_t errlen)
{
	struct engine	*e = a->engine;
	char		*own[8];
	size_t		 n, i;
	int		 rv = 0;

	n = plan_own_dirs(e->paths.root, e->paths.sandbox_dir, ea->app.dir,
	    a->id, own, 8);
	for (i = 0; i < n; i++) {
		if (rv == 0 && paths_mkdirs(own[i], 0700) == -1) {
			snprintf(err, errlen, "cannot create %s: %s", own[i],
			    strerror(errno));
			rv = -1;
		}
		free(own[i]);
	}
	if (rv == 0 && a->netns) {
		free(a->net_dir);
		xasprintf(&a->net_dir, "%s/app-net/%s", e->paths.sandbox_dir,
		    a->id);
		if (paths_mkdirs(a->net_dir, 0700) == -1) {
			snprintf(err, errlen, "cannot create %s: %s",
			    a->net_dir, strerror(errno));
			rv = -1;
		}
	}
	return rv;
}

/* What a plan of this app depends on; returns the shim path (free it). */
static char *
sv_plan_input(struct engine *e, struct engine_app *ea, struct plan_input *in,
    const char *net_dir, int port, int proxy_port, const char *token)
{
	memset(in, 0, sizeof *in);
	in->app_id = ea->app.id;
	in->app_dir = ea->app.dir;
	in->start = ea->app.start;
	in->app_env = ea->app.env;
	in->policy = &ea->policy;
	in->genv = e->genv;
	in->sandbox_dir = e->paths.sandbox_dir;
	in->path_env = getenv("PATH");
	in->user = getenv("USER") != NULL ? getenv("USER") :
	    getenv("LOGNAME");
	in->lang = getenv("LANG");
	in->bwrap = e->bwrap;
	in->shim = sv_shim_path();
	in->net_dir = net_dir;
	in->token = token;
	in->socket_dir = e->socket_dir;
	in->port = port;
	in->api_port = e->api_port;
	in->proxy_port = proxy_port;
	in->as_root = geteuid() == 0;
	in->seccomp = 1;
	in->unconfined = ea->policy.enabled && !e->bwrap_ok;
	return (char *)in->shim;
}

int
supervisor_plan(struct engine *e, struct engine_app *ea, struct plan *plan,
    char *err, size_t errlen)
{
	struct plan_input	 in;
	struct proxy		*px;
	struct sv_app		*a = sv_find(e, ea->app.id, 0);
	char			*net_dir, *shim;
	int			 rv;

	xasprintf(&net_dir, "%s/app-net/%s", e->paths.sandbox_dir,
	    ea->app.id);
	px = engine_proxy_find(e, ea->app.id);
	shim = sv_plan_input(e, ea, &in, net_dir, a != NULL &&
	    launch_running(&a->l) ? a->port : ea->app.port, px != NULL ? proxy_port(px) : 0,
	    NULL);
	rv = plan_build(&in, plan, err, errlen);
	free(shim);
	free(net_dir);
	return rv;
}

/* Everything up to the spawn; returns 0 or -1 with err (not started). */
static int
sv_spawn(struct sv_app *a, struct engine_app *ea, char *err, size_t errlen)
{
	struct engine		*e = a->engine;
	struct plan_input	 in;
	struct plan		 plan;
	cJSON			*pj;
	char			*shim = NULL;
	int			 lfd = -1, sfd = -1, port, proxy_port, rv = -1;
	size_t			 i;

	a->netns = ea->policy.enabled && e->bwrap_ok &&
	    ea->policy.network != POLICY_NET_ALL;
	if (sv_make_dirs(a, ea, err, errlen) == -1)
		return -1;
	port = ea->app.port;
	if ((lfd = launch_listen(&port, err, errlen)) == -1)
		return -1;
	if (!a->netns) {
		/* Shared network: the app binds the port itself. */
		close(lfd);
		lfd = -1;
	}
	a->port = port;
	free(a->token);
	/* Only an app that may call the engine gets a token at all. */
	a->token = ea->policy.daemon_api || !ea->policy.enabled ? sv_token() :
	    NULL;
	if (sv_bridges_open(a, ea, &proxy_port, err, errlen) == -1)
		goto out;

	shim = sv_plan_input(e, ea, &in, a->net_dir, port, proxy_port,
	    a->token);
	if (plan_build(&in, &plan, err, errlen) == -1)
		goto out;
	sv_log_line(a, plan.log_line);
	for (i = 0; i < plan.nwarnings; i++)
		sv_log_line(a, plan.warnings[i]);
	a->l.on_output = sv_output;
	a->l.on_exit = sv_exited;
	a->l.arg = a;
	if (strcmp(plan.isolation, "bubblewrap") == 0 &&
	    (sfd = filter_fd(err, errlen)) == -1) {
		plan_free(&plan);
		goto out;
	}
	rv = launch_start(e->loop, &a->l, &plan, ea->app.dir, lfd, sfd, err,
	    errlen);
	if (sfd != -1)
		close(sfd);
	if (rv == -1) {
		plan_free(&plan);
		goto out;
	}
	policy_free(&a->launched);
	policy_copy(&a->launched, &ea->policy);
	a->have_launched = 1;
	a->isolation = plan.isolation;
	free(a->log_line);
	a->log_line = xstrdup(plan.log_line);
	cJSON_Delete(a->grants);
	pj = plan_json(&plan);
	a->grants = cJSON_DetachItemFromObject(pj, "grants");
	cJSON_Delete(pj);
	plan_free(&plan);
	rv = 0;
out:
	free(shim);
	if (lfd != -1)
		close(lfd);
	if (rv == -1)
		sv_bridges_close(a);
	return rv;
}

/*
 * Check that the app can run as configured, and why not: the answer a
 * start request gets, and what a background start logs.
 */
static int
sv_can_run(struct engine *e, struct engine_app *ea, char *err, size_t errlen)
{
	if (ea->app.error != NULL) {
		snprintf(err, errlen, "%s", ea->app.error);
		return 409;
	}
	if (ea->policy_error != NULL) {
		snprintf(err, errlen, "policy cannot be used, so the app does "
		    "not start: %s", ea->policy_error);
		return 409;
	}
	if (ea->app.kind != NULL && strcmp(ea->app.kind, "server") != 0) {
		snprintf(err, errlen, "runtime.kind is \"%s\"; only \"server\" "
		    "apps are launched", ea->app.kind);
		return 409;
	}
	if (ea->app.start == NULL) {
		snprintf(err, errlen, "the manifest has no runtime.start "
		    "command");
		return 409;
	}
	if (ea->policy.enabled && !e->bwrap_ok && !e->unsandboxed_apps) {
		snprintf(err, errlen, "the sandbox is on but cannot be "
		    "enforced here, so the app does not start: %s; or run "
		    "spaceboxd --unsandboxed-apps allow to run it unconfined",
		    e->bwrap_note != NULL ? e->bwrap_note : "unknown reason");
		return 503;
	}
	return 0;
}

static void
sv_launch(struct sv_app *a)
{
	struct engine_app	ea;
	char			err[1024];

	if (engine_app_get(a->engine, a->id, &ea) == -1) {
		sv_set_error(a, "the app is gone from the workspace");
		sv_set_state(a, SV_STOPPED);
		return;
	}
	if (sv_can_run(a->engine, &ea, err, sizeof err) != 0 ||
	    sv_spawn(a, &ea, err, sizeof err) == -1) {
		sv_log_line(a, err);
		sv_set_error(a, err);
		sv_set_state(a, SV_STOPPED);
		engine_app_put(&ea);
		return;
	}
	a->background = ea.app.background;
	a->idle_secs = ea.app.idle_secs;
	free(a->health_path);
	a->health_path = xstrdup(ea.app.health_path);
	engine_app_put(&ea);
	sv_set_error(a, NULL);
	a->started_ms = sv_now(a);
	a->running_ms = 0;
	sv_set_state(a, SV_STARTING);
	uv_timer_start(&a->timer, sv_health_tick, SV_HEALTH_POLL_MS,
	    SV_HEALTH_POLL_MS);
}

/* Whether the app can be started now, as a request's answer. */
static int
sv_check(struct engine *e, const char *id, char *err, size_t errlen)
{
	struct engine_app	ea;
	int			status;

	if (engine_app_get(e, id, &ea) == -1 || ea.app.dir == NULL) {
		if (ea.app.id != NULL)
			engine_app_put(&ea);
		snprintf(err, errlen, "no app \"%.100s\" in %s", id,
		    e->paths.apps_dir);
		return 404;
	}
	status = sv_can_run(e, &ea, err, errlen);
	engine_app_put(&ea);
	return status;
}

int
supervisor_start(struct engine *e, const char *id, char *err, size_t errlen)
{
	struct sv_app		*a;
	int			 status;

	if ((status = sv_check(e, id, err, errlen)) != 0)
		return status;
	if (sv_done != NULL) {
		snprintf(err, errlen, "the engine is shutting down");
		return 503;
	}
	a = sv_find(e, id, 1);
	switch (a->state) {
	case SV_STARTING:
	case SV_RUNNING:
		return 0;
	case SV_STOPPING:
		snprintf(err, errlen, "app %s is stopping; start it again "
		    "when it has stopped", id);
		return 409;
	default:
		break;
	}
	uv_timer_stop(&a->timer);
	a->ncrashes = 0;
	a->backoff = 1;
	sv_launch(a);
	if (a->state != SV_STARTING) {
		snprintf(err, errlen, "%s", a->error != NULL ? a->error :
		    "could not start");
		return 500;
	}
	return 0;
}

static void
sv_kill_tick(uv_timer_t *t)
{
	struct sv_app	*a = t->data;

	if (a->state != SV_STOPPING || !launch_running(&a->l))
		return;
	sv_log_line(a, "did not stop within the grace time: SIGKILL");
	launch_signal(&a->l, SIGKILL);
}

static void
sv_stop_now(struct sv_app *a)
{
	if (!launch_running(&a->l)) {
		sv_set_state(a, SV_STOPPED);
		return;
	}
	sv_probe_close(a);
	uv_timer_stop(&a->idle);
	sv_set_state(a, SV_STOPPING);
	launch_signal(&a->l, SIGTERM);
	uv_timer_start(&a->timer, sv_kill_tick, SV_STOP_GRACE_MS, 0);
}

int
supervisor_stop(struct engine *e, const char *id, char *err, size_t errlen)
{
	struct sv_app	*a;

	if ((a = sv_find(e, id, 0)) == NULL || a->state == SV_STOPPED) {
		return 0;
	}
	uv_timer_stop(&a->timer);
	if (a->state == SV_BACKOFF || a->state == SV_FAILED) {
		sv_set_state(a, SV_STOPPED);
		return 0;
	}
	if (a->state != SV_STOPPING)
		sv_stop_now(a);
	return 0;
}

int
supervisor_restart(struct engine *e, const char *id, char *err,
    size_t errlen)
{
	struct sv_app		*a;
	int			 status;

	if ((status = sv_check(e, id, err, errlen)) != 0)
		return status;
	a = sv_find(e, id, 1);
	if (!launch_running(&a->l))
		return supervisor_start(e, id, err, errlen);
	/* Start again, with the policy saved by then, once it has exited. */
	a->restart_pending = 1;
	return supervisor_stop(e, id, err, errlen);
}

void
supervisor_start_background(struct engine *e)
{
	struct engine_app	  ea;
	char			**ids, err[512];
	size_t			  i, n;

	ids = app_scan(e->paths.apps_dir, &n);
	for (i = 0; i < n; i++) {
		if (engine_app_get(e, ids[i], &ea) == 0) {
			if (ea.app.background && ea.app.dir != NULL &&
			    supervisor_start(e, ids[i], err,
			    sizeof err) != 0)
				log_warnx("app %s: %s", ids[i], err);
			engine_app_put(&ea);
		}
		free(ids[i]);
	}
	free(ids);
}

static void
sv_check_shutdown(struct engine *e)
{
	struct sv_app	*a;

	if (sv_done == NULL)
		return;
	LIST_FOREACH(a, &sv_apps, entry) {
		if (launch_running(&a->l))
			return;
	}
	sv_done(e);
}

void
supervisor_shutdown(struct engine *e, void (*done)(struct engine *))
{
	struct sv_app	*a;

	sv_done = done;
	LIST_FOREACH(a, &sv_apps, entry) {
		uv_timer_stop(&a->timer);
		if (launch_running(&a->l) && a->state != SV_STOPPING)
			sv_stop_now(a);
		else if (!launch_running(&a->l) && a->state != SV_STOPPED)
			a->state = SV_STOPPED;
	}
	sv_check_shutdown(e);
}

const char *
supervisor_state(struct engine *e, const char *id)
{
	struct sv_app	*a = sv_find(e, id, 0);

	return a != NULL ? sv_state_names[a->state] : "stopped";
}

int
supervisor_restart_needed(struct engine *e, const char *id,
    const struct policy *saved)
{
	struct sv_app	*a = sv_find(e, id, 0);

	if (a == NULL || !launch_running(&a->l) || !a->have_launched)
		return 0;
	return policy_needs_restart(&a->launched, saved);
}

const char *
supervisor_token_app(struct engine *e, const char *token)
{
	struct sv_app	*a;
	size_t		 i, len = strlen(token);
	unsigned char	 diff;

	LIST_FOREACH(a, &sv_apps, entry) {
		if (a->token == NULL || strlen(a->token) != len)
			continue;
		/* Compare in constant time. */
		for (i = 0, diff = 0; i < len; i++)
			diff |= (unsigned char)(a->token[i] ^ token[i]);
		if (diff == 0)
			return a->id;
	}
	return NULL;
}

cJSON *
supervisor_runtime_json(struct engine *e, struct engine_app *ea)
{
	struct sv_app	*a = sv_find(e, ea->app.id, 0);
	struct proxy	*px;
	cJSON		*o, *p;
	int		 running;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "appId", ea->app.id);
	running = a != NULL && (a->state == SV_RUNNING ||
	    a->state == SV_STARTING);
	cJSON_AddBoolToObject(o, "running", a != NULL &&
	    a->state == SV_RUNNING);
	cJSON_AddStringToObject(o, "state", a != NULL ?
	    sv_state_names[a->state] : "stopped");
	if (a != NULL && launch_running(&a->l)) {
		p = cJSON_AddObjectToObject(o, "process");
		cJSON_AddNumberToObject(p, "pid", a->l.pid);
		if (a->l.shim_pid > 0)
			cJSON_AddNumberToObject(p, "sandboxPid", a->l.shim_pid);
		cJSON_AddNumberToObject(p, "port", a->port);
		cJSON_AddNumberToObject(p, "uptimeMs", (double)(sv_now(a) -
		    a->started_ms));
		cJSON_AddStringToObject(p, "isolation", a->isolation);
		cJSON_AddBoolToObject(p, "networkNamespace", a->netns);
		cJSON_AddStringToObject(p, "logLine", a->log_line);
		if (a->grants != NULL)
			cJSON_AddItemToObject(p, "grants",
			    cJSON_Duplicate(a->grants, 1));
	} else
		cJSON_AddNullToObject(o, "process");
	cJSON_AddNumberToObject(o, "restarts", a != NULL ? a->restarts : 0);
	if (a != NULL && a->last_exit != NULL)
		cJSON_AddStringToObject(o, "lastExit", a->last_exit);
	else
		cJSON_AddNullToObject(o, "lastExit");
	if (a != NULL && a->state == SV_BACKOFF)
		cJSON_AddNumberToObject(o, "backoffMs", (double)
		    uv_timer_get_due_in(&a->timer));
	if (a != NULL && a->error != NULL)
		cJSON_AddStringToObject(o, "error", a->error);
	else if (ea->app.error != NULL)
		cJSON_AddStringToObject(o, "error", ea->app.error);
	else if (ea->policy_error != NULL)
		cJSON_AddStringToObject(o, "error", ea->policy_error);
	cJSON_AddBoolToObject(o, "restartRequired", running &&
	    ea->policy_error == NULL &&
	    supervisor_restart_needed(e, ea->app.id, &ea->policy));
	if ((px = engine_proxy_find(e, ea->app.id)) != NULL)
		cJSON_AddItemToObject(o, "proxy", proxy_json(px));
	else
		cJSON_AddNullToObject(o, "proxy");
	return o;
}
