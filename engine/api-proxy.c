/*
 * POST|DELETE /api/space/apps/:id/proxy and GET /api/events: start and
 * stop an app's allowlist proxy, and the live event stream (wants,
 * policy changes) that screens follow.
 */
#include "api.h"

void
api_proxy_start(struct api_req *req)
{
	struct engine_app	 ea;
	struct proxy		*p;
	char			 err[512];
	int			 status;
	cJSON			*o;

	if (api_app(req, &ea) == -1)
		return;
	status = engine_proxy_start(req->engine, &ea, &p, err, sizeof err);
	if (status != 0)
		server_reply_error(req->conn, status, "%s", err);
	else {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "appId", ea.app.id);
		cJSON_AddNumberToObject(o, "port", proxy_port(p));
		server_reply(req->conn, 200, o);
	}
	engine_app_put(&ea);
}

void
api_proxy_stop(struct api_req *req)
{
	cJSON	*o;

	if (engine_proxy_stop(req->engine, req->params[0]) == -1) {
		server_reply_error(req->conn, 404, "no proxy runs for app "
		    "\"%.100s\"", req->params[0]);
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "ok", 1);
	server_reply(req->conn, 200, o);
}

void
api_events(struct api_req *req)
{
	server_stream_start(req->conn);
}
