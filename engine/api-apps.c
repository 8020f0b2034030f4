/*
 * GET /api/space/apps and GET /api/space/apps/sandbox-overview: every app
 * in the workspace, with its problems said, never hidden.
 */
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "supervisor.h"

static void
api_apps_add_policy(cJSON *o, const struct engine_app *ea)
{
	const struct policy	*p = &ea->policy;
	cJSON			*s, *h;
	size_t			 i;

	if (ea->policy_error != NULL) {
		cJSON_AddStringToObject(o, "policyError", ea->policy_error);
		cJSON_AddNullToObject(o, "sandbox");
		return;
	}
	cJSON_AddNullToObject(o, "policyError");
	s = cJSON_AddObjectToObject(o, "sandbox");
	cJSON_AddBoolToObject(s, "enabled", p->enabled);
	cJSON_AddStringToObject(s, "readMode", policy_read_name(p->read_mode));
	cJSON_AddStringToObject(s, "network", policy_net_name(p->network));
	h = cJSON_AddArrayToObject(s, "hosts");
	for (i = 0; i < p->nhosts; i++)
		cJSON_AddItemToArray(h, cJSON_CreateString(p->hosts[i]));
	cJSON_AddNumberToObject(s, "folders", (double)p->nfolders);
	cJSON_AddBoolToObject(s, "daemonApi", p->daemon_api);
	cJSON_AddBoolToObject(s, "forced", p->forced);
}

static cJSON *
api_apps_entry(struct engine *e, const struct engine_app *ea)
{
	const struct app	*a = &ea->app;
	struct proxy		*px;
	cJSON			*o, *pj;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", a->id);
	cJSON_AddStringToObject(o, "name", a->name != NULL ? a->name : a->id);
	if (a->dir != NULL)
		cJSON_AddStringToObject(o, "dir", a->dir);
	if (a->kind != NULL)
		cJSON_AddStringToObject(o, "kind", a->kind);
	cJSON_AddStringToObject(o, "mode", a->background ? "background" :
	    "session");
	cJSON_AddNumberToObject(o, "port", a->port);
	cJSON_AddStringToObject(o, "state", a->error != NULL ||
	    ea->policy_error != NULL ? "error" :
	    supervisor_state(e, a->id));
	cJSON_AddBoolToObject(o, "restartRequired",
	    ea->policy_error == NULL &&
	    supervisor_restart_needed(e, a->id, &ea->policy));
	if (a->error != NULL)
		cJSON_AddStringToObject(o, "error", a->error);
	else
		cJSON_AddNullToObject(o, "error");
	api_apps_add_policy(o, ea);
	if ((px = engine_proxy_find(e, a->id)) != NULL) {
		pj = proxy_json(px);
		cJSON_AddItemToObject(o, "wants", cJSON_DetachItemFromObject(
		    cJSON_GetObjectItemCaseSensitive(pj, "stats"),
		    "recentDenied"));
		cJSON_Delete(pj);
	} else
		cJSON_AddArrayToObject(o, "wants");
	return o;
}

/* Call fn for every app in the workspace, in id order. */
static cJSON *
api_apps_collect(struct engine *e, cJSON *(*fn)(struct engine *,
    const struct engine_app *))
{
	struct engine_app	  ea;
	cJSON			 *arr;
	char			**ids;
	size_t			  i, n;

	arr = cJSON_CreateArray();
	ids = app_scan(e->paths.apps_dir, &n);
	for (i = 0; i < n; i++) {
		if (engine_app_get(e, ids[i], &ea) == 0) {
			cJSON_AddItemToArray(arr, fn(e, &ea));
			engine_app_put(&ea);
		}
		free(ids[i]);
	}
	free(ids);
	return arr;
}

void
api_apps_list(struct api_req *req)
{
	cJSON	*o;

	o = cJSON_CreateObject();
	cJSON_AddItemToObject(o, "apps", api_apps_collect(req->engine,
	    api_apps_entry));
	server_reply(req->conn, 200, o);
}

static cJSON *
api_overview_entry(struct engine *e, const struct engine_app *ea)
{
	cJSON	*o;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "appId", ea->app.id);
	cJSON_AddStringToObject(o, "name", ea->app.name != NULL ?
	    ea->app.name : ea->app.id);
	if (ea->app.error != NULL)
		cJSON_AddStringToObject(o, "error", ea->app.error);
	if (ea->policy_error != NULL)
		cJSON_AddStringToObject(o, "policyError", ea->policy_error);
	else
		cJSON_AddItemToObject(o, "config",
		    policy_to_json(&ea->policy));
	return o;
}

void
api_apps_overview(struct api_req *req)
{
	struct engine	*e = req->engine;
	cJSON		*o, *m;

	o = cJSON_CreateObject();
	m = cJSON_AddObjectToObject(o, "machine");
	cJSON_AddStringToObject(m, "platform", "linux");
	cJSON_AddStringToObject(m, "isolation", e->bwrap_ok ? "bubblewrap" :
	    e->unsandboxed_apps ? "unconfined" : "unavailable");
	cJSON_AddBoolToObject(m, "enforceable", e->bwrap_ok);
	if (e->bwrap_note != NULL)
		cJSON_AddStringToObject(m, "note", e->bwrap_note);
	cJSON_AddNumberToObject(m, "daemonPort", e->api_port);
	cJSON_AddItemToObject(o, "apps", api_apps_collect(e,
	    api_overview_entry));
	server_reply(req->conn, 200, o);
}
