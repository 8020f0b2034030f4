/*
 * GET|PUT /api/space/apps/:id/sandbox and POST .../sandbox/hosts: one
 * app's policy, in SenClaw's response shapes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "plan.h"
#include "supervisor.h"
#include "xmalloc.h"

/*
 * What this machine can enforce for this policy, said plainly: the
 * "effective" block of SenClaw's answer.
 */
static cJSON *
api_effective(struct engine *e, struct engine_app *ea)
{
	const struct sb_paths	*sp = &e->paths;
	const struct policy	*p = &ea->policy;
	cJSON			*o, *a;
	char			*own[8], *note;
	const char		*isolation, *net;
	size_t			 i, nown;

	o = cJSON_CreateObject();
	if (!p->enabled)
		isolation = "none";
	else if (e->bwrap_ok)
		isolation = "bubblewrap";
	else if (e->unsandboxed_apps)
		isolation = "unconfined";
	else
		isolation = "unavailable";
	cJSON_AddStringToObject(o, "isolation", isolation);
	cJSON_AddBoolToObject(o, "enforceable", e->bwrap_ok);
	cJSON_AddBoolToObject(o, "networkEnforceable", e->bwrap_ok);

	switch (p->network) {
	case POLICY_NET_OFF:
		net = "network: nothing; the app gets its own network "
		    "namespace and only its own port (forwarded in), the "
		    "engine API if allowed and the listed local ports are "
		    "reachable";
		break;
	case POLICY_NET_HOSTS:
		net = "network: only the listed sites, through the allowlist "
		    "proxy; the app gets its own network namespace, so a "
		    "client that ignores the proxy reaches nothing";
		break;
	default:
		net = "network: everything; the app shares this machine's "
		    "network namespace, so loopback is not closed";
		break;
	}
	if (!e->bwrap_ok)
		xasprintf(&note, "This machine cannot sandbox apps: %s. %s",
		    e->bwrap_note != NULL ? e->bwrap_note : "unknown",
		    e->unsandboxed_apps ? "The operator allows enabled apps "
		    "to run unconfined." : "Apps with the sandbox on will "
		    "not start.");
	else if (!p->enabled)
		xasprintf(&note, "Sandbox off: the app runs with all your "
		    "rights. On Linux, bubblewrap enforces the folder rules "
		    "and the app gets its own network namespace unless "
		    "network is \"all\".");
	else
		xasprintf(&note, "Linux, bubblewrap: writes only to its own "
		    "folders; reads %s; %s.", p->read_mode ==
		    POLICY_READ_STRICT ? "only system folders, its own "
		    "folders and the grants" : "everything except credential "
		    "stores and the engine's state", net);
	cJSON_AddStringToObject(o, "note", note);
	free(note);

	a = cJSON_AddArrayToObject(o, "alwaysGranted");
	nown = plan_own_dirs(sp->root, sp->sandbox_dir, ea->app.dir,
	    ea->app.id, own, 8);
	for (i = 0; i < nown; i++) {
		cJSON_AddItemToArray(a, cJSON_CreateString(own[i]));
		free(own[i]);
	}
	cJSON_AddNumberToObject(o, "daemonPort", e->api_port);
	return o;
}

static cJSON *
api_sandbox_answer(struct engine *e, struct engine_app *ea)
{
	struct proxy	*p;
	cJSON		*o;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "appId", ea->app.id);
	cJSON_AddItemToObject(o, "config", policy_to_json(&ea->policy));
	cJSON_AddItemToObject(o, "effective", api_effective(e, ea));
	if ((p = engine_proxy_find(e, ea->app.id)) != NULL)
		cJSON_AddItemToObject(o, "proxy", proxy_json(p));
	else
		cJSON_AddNullToObject(o, "proxy");
	return o;
}

void
api_sandbox_get(struct api_req *req)
{
	struct engine_app	ea;

	if (api_app(req, &ea) == -1)
		return;
	if (ea.policy_error != NULL)
		server_reply_error(req->conn, 409, "policy cannot be used, "
		    "so the app will not start: %s; fix the file or save a "
		    "new policy with 'spacebox sandbox put %s' (a file that "
		    "does not parse is kept aside)",
		    ea.policy_error, ea.app.id);
	else
		server_reply(req->conn, 200,
		    api_sandbox_answer(req->engine, &ea));
	engine_app_put(&ea);
}

/* Store newp for the app and answer as SenClaw does. */
static void
api_sandbox_store(struct api_req *req, struct engine_app *ea,
    struct policy *newp)
{
	char	 err[1024];
	cJSON	*o;
	int	 status;

	if ((status = engine_policy_save(req->engine, ea, newp, err,
	    sizeof err)) != 0) {
		server_reply_error(req->conn, status, "%s", err);
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "ok", 1);
	cJSON_AddItemToObject(o, "config", policy_to_json(&ea->policy));
	/*
	 * A running proxy took the new site list already; anything else
	 * the running process was launched without needs a restart.
	 */
	cJSON_AddBoolToObject(o, "hostsAppliedLive",
	    engine_proxy_find(req->engine, ea->app.id) != NULL);
	cJSON_AddBoolToObject(o, "restartRequired",
	    supervisor_restart_needed(req->engine, ea->app.id, &ea->policy));
	server_reply(req->conn, 200, o);
}

void
api_sandbox_put(struct api_req *req)
{
	struct engine_app	 ea;
	struct policy		 p;
	char			 err[1024];
	cJSON			*body;

	if (api_app(req, &ea) == -1)
		return;
	if ((body = api_body_json(req)) == NULL) {
		engine_app_put(&ea);
		return;
	}
	if (policy_from_json(&p, body, &req->engine->genv,
	    POLICY_FROM_REQUEST, err, sizeof err) == -1) {
		server_reply_error(req->conn, 400, "%s", err);
		goto out;
	}
	/* For a forced app the sandbox is on unless a body says otherwise. */
	if (ea.app.decl.forced &&
	    cJSON_GetObjectItemCaseSensitive(body, "enabled") == NULL)
		p.enabled = 1;
	api_sandbox_store(req, &ea, &p);
	policy_free(&p);
out:
	cJSON_Delete(body);
	engine_app_put(&ea);
}

void
api_sandbox_add_host(struct api_req *req)
{
	struct engine_app	 ea;
	struct policy		 p;
	const cJSON		*h;
	char			 err[1024];
	cJSON			*body;

	if (api_app(req, &ea) == -1)
		return;
	if ((body = api_body_json(req)) == NULL) {
		engine_app_put(&ea);
		return;
	}
	h = cJSON_GetObjectItemCaseSensitive(body, "host");
	if (ea.policy_error != NULL)
		server_reply_error(req->conn, 409, "policy cannot be used: "
		    "%s; save a whole new policy first", ea.policy_error);
	else if (!cJSON_IsString(h))
		server_reply_error(req->conn, 400, "body must be "
		    "{\"host\": \"name\"}");
	else {
		policy_copy(&p, &ea.policy);
		if (policy_add_host(&p, h->valuestring, err, sizeof err) == -1)
			server_reply_error(req->conn, 400, "%s", err);
		else
			api_sandbox_store(req, &ea, &p);
		policy_free(&p);
	}
	cJSON_Delete(body);
	engine_app_put(&ea);
}
