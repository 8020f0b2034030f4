/*
 * Engine state and the operations on apps and policies that the API
 * routes share.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine.h"
#include "filter.h"
#include "log.h"
#include "server.h"
#include "store.h"
#include "xmalloc.h"

void
engine_init(struct engine *e, uv_loop_t *loop)
{
	memset(e, 0, sizeof *e);
	e->loop = loop;
	e->api_port = ENGINE_API_PORT_DEFAULT;
	e->exec_timeout = 120;
	policy_init(&e->exec_policy);
	e->proxy_limits.max_tunnels = 1024;
	e->proxy_limits.idle_secs = 300;
	e->proxy_limits.header_secs = PROXY_HEADER_SECS;
	e->proxy_limits.connect_secs = PROXY_CONNECT_SECS;
	LIST_INIT(&e->proxies);
}

void
engine_publish(struct engine *e, cJSON *event)
{
	server_broadcast(event);
	cJSON_Delete(event);
}

static void
engine_want(void *arg, const char *app_id, const char *host)
{
	cJSON	*ev = cJSON_CreateObject();

	cJSON_AddStringToObject(ev, "event", "wants");
	cJSON_AddStringToObject(ev, "appId", app_id);
	cJSON_AddStringToObject(ev, "host", host);
	engine_publish(arg, ev);
}

static struct engine_proxy *
engine_proxy_entry(struct engine *e, const char *id)
{
	struct engine_proxy	*ep;

	LIST_FOREACH(ep, &e->proxies, entry) {
		if (strcmp(ep->app_id, id) == 0)
			return ep;
	}
	return NULL;
}

struct proxy *
engine_proxy_find(struct engine *e, const char *id)
{
	struct engine_proxy	*ep = engine_proxy_entry(e, id);

	return ep != NULL ? ep->proxy : NULL;
}

int
engine_proxy_start(struct engine *e, struct engine_app *ea,
    struct proxy **out, char *err, size_t errlen)
{
	struct engine_proxy	*ep;
	struct proxy		*p;

	if ((p = engine_proxy_find(e, ea->app.id)) != NULL) {
		*out = p;
		return 0;
	}
	if (ea->policy_error != NULL) {
		snprintf(err, errlen, "policy cannot be used: %s",
		    ea->policy_error);
		return 409;
	}
	if (ea->policy.network != POLICY_NET_HOSTS) {
		snprintf(err, errlen, "app %s is not in \"only these sites\" "
		    "mode (network is \"%s\"); it has no proxy", ea->app.id,
		    policy_net_name(ea->policy.network));
		return 409;
	}
	if ((p = proxy_start(e->loop, ea->app.id, &ea->policy,
	    &e->proxy_limits, engine_want, e, err, errlen)) == NULL)
		return 500;
	ep = xcalloc(1, sizeof *ep);
	ep->app_id = xstrdup(ea->app.id);
	ep->proxy = p;
	LIST_INSERT_HEAD(&e->proxies, ep, entry);
	*out = p;
	return 0;
}

int
engine_proxy_stop(struct engine *e, const char *id)
{
	struct engine_proxy	*ep;

	if ((ep = engine_proxy_entry(e, id)) == NULL)
		return -1;
	LIST_REMOVE(ep, entry);
	proxy_stop(ep->proxy);
	free(ep->app_id);
	free(ep);
	return 0;
}

void
engine_proxy_stop_all(struct engine *e)
{
	while (!LIST_EMPTY(&e->proxies))
		engine_proxy_stop(e, LIST_FIRST(&e->proxies)->app_id);
}

/*
 * Find out once, at start, whether bubblewrap can build a sandbox here:
 * a missing binary and refused user namespaces (Ubuntu's AppArmor
 * restriction, a zero max_user_namespaces) look different and have
 * different fixes.
 */
void
engine_probe(struct engine *e)
{
	char	 out[512] = "";
	int	 fds[2], status;
	ssize_t	 n;
	size_t	 off = 0;
	pid_t	 pid;

	free(e->bwrap_note);
	e->bwrap_note = NULL;
	e->bwrap_ok = 0;
	/* Another bwrap may be named for unusual installs and for tests. */
	if ((e->bwrap = getenv("SPACEBOX_BWRAP")) == NULL || *e->bwrap != '/')
		e->bwrap = "/usr/bin/bwrap";
	if (access(e->bwrap, X_OK) == -1) {
		xasprintf(&e->bwrap_note, "bubblewrap is not installed (no "
		    "%s): apt-get install bubblewrap", e->bwrap);
		return;
	}
	if (pipe2(fds, O_CLOEXEC) == -1)
		fatal("pipe2");
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		dup2(fds[1], 2);
		dup2(open("/dev/null", O_RDWR), 1);
		execl(e->bwrap, "bwrap", "--ro-bind", "/", "/",
		    "--unshare-all", "--die-with-parent", "--new-session",
		    "--", "/bin/true", (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while (off < sizeof out - 1 &&
	    (n = read(fds[0], out + off, sizeof out - 1 - off)) > 0)
		off += (size_t)n;
	out[off] = '\0';
	close(fds[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		/* Without its system-call filter no sandbox is started. */
		if (filter_init(out, sizeof out) == -1) {
			e->bwrap_note = xstrdup(out);
			return;
		}
		e->bwrap_ok = 1;
		return;
	}
	out[strcspn(out, "\n")] = '\0';
	if (strstr(out, "ermission denied") != NULL ||
	    strstr(out, "not permitted") != NULL ||
	    strstr(out, "No space left") != NULL)
		xasprintf(&e->bwrap_note, "bubblewrap cannot create user "
		    "namespaces here (%s): allow them (sysctl "
		    "kernel.unprivileged_userns_clone=1, user.max_user_"
		    "namespaces>0, or on Ubuntu an AppArmor profile for "
		    "bwrap / kernel.apparmor_restrict_unprivileged_userns=0)",
		    out);
	else
		xasprintf(&e->bwrap_note, "bubblewrap failed its self-test: "
		    "%s", out[0] != '\0' ? out : "no message");
}

int
engine_app_get(struct engine *e, const char *id, struct engine_app *ea)
{
	char	err[1024];
	int	rv;

	memset(ea, 0, sizeof *ea);
	policy_init(&ea->policy);
	if (app_read(e->paths.apps_dir, id, &e->genv, &ea->app) == -1)
		return -1;
	if (ea->app.error != NULL && ea->app.dir == NULL)
		return 0;	/* invalid id: nothing to load */

	rv = store_load(e->paths.policy_dir, id, &e->genv, &ea->policy, err,
	    sizeof err);
	if (rv == STORE_CORRUPT) {
		ea->policy_error = xstrdup(err);
		return 0;
	}
	if (rv == STORE_MISSING && ea->app.has_decl) {
		/* First sight: the declaration becomes the saved policy. */
		policy_free(&ea->policy);
		policy_copy(&ea->policy, &ea->app.decl);
		if (store_save(e->paths.policy_dir, id, &ea->policy, err,
		    sizeof err) == -1)
			log_warnx("app %s: %s", id, err);
	}
	/* A forced app cannot lose its sandbox, whatever the file says. */
	if (ea->app.decl.forced) {
		ea->policy.forced = 1;
		ea->policy.enabled = 1;
	} else
		ea->policy.forced = 0;
	return 0;
}

void
engine_app_put(struct engine_app *ea)
{
	app_free(&ea->app);
	policy_free(&ea->policy);
	free(ea->policy_error);
	memset(ea, 0, sizeof *ea);
}

int
engine_policy_save(struct engine *e, struct engine_app *ea,
    struct policy *newp, char *err, size_t errlen)
{
	struct proxy	*p;
	cJSON		*ev;

	if (ea->app.error != NULL && ea->app.dir == NULL) {
		snprintf(err, errlen, "%s", ea->app.error);
		return 400;
	}
	newp->forced = ea->app.decl.forced;
	if (newp->forced && !newp->enabled) {
		snprintf(err, errlen, "%s", ENGINE_FORCED_MSG);
		return 409;
	}
	if (store_save(e->paths.policy_dir, ea->app.id, newp, err,
	    errlen) == -1) {
		log_warnx("app %s: %s", ea->app.id, err);
		return 500;
	}
	free(ea->policy_error);
	ea->policy_error = NULL;
	policy_free(&ea->policy);
	policy_copy(&ea->policy, newp);
	if ((p = engine_proxy_find(e, ea->app.id)) != NULL)
		proxy_set_policy(p, newp);
	ev = cJSON_CreateObject();
	cJSON_AddStringToObject(ev, "event", "policy");
	cJSON_AddStringToObject(ev, "appId", ea->app.id);
	engine_publish(e, ev);
	return 0;
}
