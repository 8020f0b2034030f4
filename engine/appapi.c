/*
 * The app-facing API (SENCLAW_BASE_URL): what a running app may ask the
 * engine for.  Every request carries the app's token, and only the
 * calling app's own routes exist: its health and a small key/value
 * config store.  Nothing here reads or changes any policy or controls any
 * app (stricter than SenClaw, where an app can turn its sandbox off).
 *
 * Apps with their own network namespace reach it through a unix socket
 * bound into the sandbox; that socket also names the app, and must agree
 * with the token.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api.h"
#include "store.h"
#include "supervisor.h"
#include "xmalloc.h"

#define APPAPI_MAX_KEYS		256
#define APPAPI_MAX_FILE		(256 * 1024)

/*
 * Check the token: returns 0 when the request may act for :id, else
 * answers 401/403 and returns -1.
 */
static int
appapi_auth(struct api_req *req)
{
	const char	*h, *token = NULL, *owner;

	if ((h = httpmsg_header(req->msg, "authorization")) != NULL &&
	    strncasecmp(h, "Bearer ", 7) == 0)
		token = h + 7;
	else
		token = httpmsg_header(req->msg, "x-senclaw-token");
	if (token == NULL || (owner = supervisor_token_app(req->engine,
	    token)) == NULL) {
		server_reply_error(req->conn, 401, "a valid app token is "
		    "required (SENCLAW_TOKEN_ACCESS_APP)");
		return -1;
	}
	if (strcmp(owner, req->params[0]) != 0 ||
	    (req->via_app != NULL && strcmp(req->via_app, owner) != 0)) {
		server_reply_error(req->conn, 403, "an app may use only its "
		    "own routes");
		return -1;
	}
	return 0;
}

static void
appapi_health(struct api_req *req)
{
	cJSON	*o;

	if (appapi_auth(req) == -1)
		return;
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "ok", 1);
	cJSON_AddStringToObject(o, "appId", req->params[0]);
	server_reply(req->conn, 200, o);
}

static char *
appapi_dir(struct engine *e)
{
	char	*dir;

	xasprintf(&dir, "%s/app-config", e->paths.sandbox_dir);
	return dir;
}

/* The app's stored config object; an empty one when there is none. */
static cJSON *
appapi_load(struct engine *e, const char *id)
{
	char	*dir, *path, *text = NULL;
	FILE	*f;
	long	 n;
	cJSON	*o = NULL;

	dir = appapi_dir(e);
	xasprintf(&path, "%s/%s.json", dir, id);
	if ((f = fopen(path, "re")) != NULL) {
		if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
		    n <= APPAPI_MAX_FILE && fseek(f, 0, SEEK_SET) == 0) {
			text = xmalloc((size_t)n + 1);
			text[fread(text, 1, (size_t)n, f)] = '\0';
			o = cJSON_Parse(text);
		}
		fclose(f);
	}
	free(text);
	free(path);
	free(dir);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		o = cJSON_CreateObject();
	}
	return o;
}

static int
appapi_save(struct api_req *req, const cJSON *o)
{
	char	 err[512], name[128], *dir, *text;
	int	 rv;

	text = cJSON_PrintUnformatted(o);
	if (strlen(text) > APPAPI_MAX_FILE) {
		cJSON_free(text);
		server_reply_error(req->conn, 413, "the app's config store is "
		    "limited to 256 KiB");
		return -1;
	}
	dir = appapi_dir(req->engine);
	snprintf(name, sizeof name, "%s.json", req->params[0]);
	rv = store_write_atomic(dir, name, text, err, sizeof err);
	free(dir);
	cJSON_free(text);
	if (rv == -1)
		server_reply_error(req->conn, 500, "%s", err);
	return rv;
}

static void
appapi_config_all(struct api_req *req)
{
	cJSON	*o;

	if (appapi_auth(req) == -1)
		return;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "appId", req->params[0]);
	cJSON_AddItemToObject(o, "config", appapi_load(req->engine,
	    req->params[0]));
	server_reply(req->conn, 200, o);
}

static void
appapi_config_get(struct api_req *req)
{
	cJSON	*all, *v, *o;

	if (appapi_auth(req) == -1)
		return;
	all = appapi_load(req->engine, req->params[0]);
	if ((v = cJSON_GetObjectItemCaseSensitive(all, req->params[1])) ==
	    NULL)
		server_reply_error(req->conn, 404, "no key \"%.100s\"",
		    req->params[1]);
	else {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "key", req->params[1]);
		cJSON_AddItemToObject(o, "value", cJSON_Duplicate(v, 1));
		server_reply(req->conn, 200, o);
	}
	cJSON_Delete(all);
}

static void
appapi_config_put(struct api_req *req)
{
	cJSON	*all, *v, *o;

	if (appapi_auth(req) == -1)
		return;
	if (strlen(req->params[1]) > 128) {
		server_reply_error(req->conn, 400, "keys are at most 128 "
		    "characters");
		return;
	}
	if ((v = api_body_json(req)) == NULL)
		return;
	all = appapi_load(req->engine, req->params[0]);
	if (cJSON_GetObjectItemCaseSensitive(all, req->params[1]) == NULL &&
	    cJSON_GetArraySize(all) >= APPAPI_MAX_KEYS) {
		server_reply_error(req->conn, 413, "the app's config store "
		    "holds at most %d keys", APPAPI_MAX_KEYS);
		cJSON_Delete(v);
		cJSON_Delete(all);
		return;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(all, req->params[1]);
	cJSON_AddItemToObject(all, req->params[1], v);
	if (appapi_save(req, all) == 0) {
		o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "ok", 1);
		server_reply(req->conn, 200, o);
	}
	cJSON_Delete(all);
}

static void
appapi_config_delete(struct api_req *req)
{
	cJSON	*all, *o;

	if (appapi_auth(req) == -1)
		return;
	all = appapi_load(req->engine, req->params[0]);
	cJSON_DeleteItemFromObjectCaseSensitive(all, req->params[1]);
	if (appapi_save(req, all) == 0) {
		o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "ok", 1);
		server_reply(req->conn, 200, o);
	}
	cJSON_Delete(all);
}

const struct api_route appapi_routes[] = {
	{ "GET", "/api/space/apps/:id/health", appapi_health },
	{ "GET", "/api/space/apps/:id/config", appapi_config_all },
	{ "GET", "/api/space/apps/:id/config/:key", appapi_config_get },
	{ "PUT", "/api/space/apps/:id/config/:key", appapi_config_put },
	{ "DELETE", "/api/space/apps/:id/config/:key", appapi_config_delete },
};
const size_t appapi_nroutes = sizeof appapi_routes / sizeof appapi_routes[0];
