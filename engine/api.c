/*
 * Route table and dispatch for the management API.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "exec.h"
#include "log.h"
#include "xmalloc.h"

const struct api_route api_routes[] = {
	{ "GET", "/api/space/apps", api_apps_list },
	{ "GET", "/api/space/apps/sandbox-overview", api_apps_overview },
	{ "GET", "/api/space/apps/:id/sandbox", api_sandbox_get },
	{ "PUT", "/api/space/apps/:id/sandbox", api_sandbox_put },
	{ "POST", "/api/space/apps/:id/sandbox/hosts", api_sandbox_add_host },
	{ "POST", "/api/space/apps/:id/proxy", api_proxy_start },
	{ "DELETE", "/api/space/apps/:id/proxy", api_proxy_stop },
	{ "POST", "/api/space/apps/:id/start", api_app_start },
	{ "POST", "/api/space/apps/:id/stop", api_app_stop },
	{ "POST", "/api/space/apps/:id/restart", api_app_restart },
	{ "GET", "/api/space/apps/:id/runtime", api_app_runtime },
	{ "GET", "/api/space/apps/:id/logs", api_app_logs },
	{ "GET", "/api/space/apps/:id/plan", api_app_plan },
	{ "POST", "/api/exec", api_exec_run },
	{ "GET", "/api/exec/jobs", api_exec_list },
	{ "GET", "/api/exec/jobs/:id", api_exec_get },
	{ "POST", "/api/exec/jobs/:id/approve", api_exec_approve },
	{ "POST", "/api/exec/jobs/:id/deny", api_exec_deny },
	{ "POST", "/api/exec/jobs/:id/stop", api_exec_stop },
	{ "GET", "/api/events", api_events },
};
const size_t api_nroutes = sizeof api_routes / sizeof api_routes[0];

/*
 * Match path against pattern segment by segment; ":name" segments
 * capture into params (cut out of path, which is modified).
 */
static int
api_match(const char *pattern, char *path, const char **params)
{
	const char	*pp = pattern;
	char		*sp = path;
	size_t		 np = 0, plen, slen;

	while (*pp != '\0' && *sp != '\0') {
		if (*pp != '/' || *sp != '/')
			return 0;
		pp++;
		sp++;
		plen = strcspn(pp, "/");
		slen = strcspn(sp, "/");
		if (*pp == ':') {
			if (slen == 0 || np == API_MAX_PARAMS)
				return 0;
			params[np++] = sp;
		} else if (plen != slen || strncmp(pp, sp, plen) != 0)
			return 0;
		pp += plen;
		sp += slen;
	}
	return *pp == '\0' && *sp == '\0';
}

void
api_dispatch(struct server_conn *c, const struct api_route *routes,
    size_t nroutes)
{
	struct api_req		 req;
	const struct api_route	*r;
	char			*path, *copy, *q;
	size_t			 i, k;
	int			 path_known = 0;

	memset(&req, 0, sizeof req);
	req.conn = c;
	req.engine = c->engine;
	req.method = http_method_str(c->msg.parser.method);
	req.body = c->msg.body != NULL ? c->msg.body : "";
	req.bodylen = c->msg.bodylen;
	req.msg = &c->msg;
	req.via_app = c->listener->app_id;

	if (c->msg.url == NULL || c->msg.url[0] != '/') {
		server_reply_error(c, 400, "request target must be a path");
		return;
	}
	path = xstrdup(c->msg.url);
	if ((q = strchr(path, '?')) != NULL) {
		*q = '\0';
		req.query = c->msg.url + (q - path) + 1;
	}
	for (i = 0; i < nroutes; i++) {
		r = &routes[i];
		copy = xstrdup(path);
		memset(req.params, 0, sizeof req.params);
		if (!api_match(r->pattern, copy, req.params)) {
			free(copy);
			continue;
		}
		path_known = 1;
		if (strcmp(r->method, req.method) != 0) {
			free(copy);
			continue;
		}
		/* Cut each captured segment at its '/'. */
		for (k = 0; k < API_MAX_PARAMS && req.params[k] != NULL; k++)
			((char *)req.params[k])[strcspn(req.params[k], "/")] =
			    '\0';
		log_debug("%s %s", req.method, c->msg.url);
		r->handler(&req);
		free(copy);
		free(path);
		return;
	}
	if (path_known)
		server_reply_error(c, 405, "%s is not allowed on %s",
		    req.method, path);
	else
		server_reply_error(c, 404, "no such route: %s %s", req.method,
		    path);
	free(path);
}

cJSON *
api_body_json(struct api_req *req)
{
	cJSON	*j;

	j = cJSON_ParseWithLength(req->body, req->bodylen);
	if (j == NULL)
		server_reply_error(req->conn, 400, "request body is not valid "
		    "JSON");
	return j;
}

int
api_app(struct api_req *req, struct engine_app *ea)
{
	if (engine_app_get(req->engine, req->params[0], ea) == -1) {
		server_reply_error(req->conn, 404, "no app \"%.100s\" in %s",
		    req->params[0], req->engine->paths.apps_dir);
		return -1;
	}
	if (ea->app.dir == NULL) {
		/* The folder exists but its name is not a usable id. */
		server_reply_error(req->conn, 400, "%s", ea->app.error);
		engine_app_put(ea);
		return -1;
	}
	return 0;
}
