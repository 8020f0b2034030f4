/*
 * Running apps: POST /api/space/apps/:id/{start,stop,restart},
 * GET .../runtime (SenClaw's shape), GET .../logs (?follow=1 streams),
 * GET .../plan (the launch plan, without launching).
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "plan.h"
#include "supervisor.h"
#include "xmalloc.h"

#define API_LOG_TAIL	(64 * 1024)

static void
api_runtime_answer(struct api_req *req, int status, const char *err)
{
	struct engine_app	ea;

	if (status != 0) {
		server_reply_error(req->conn, status, "%s", err);
		return;
	}
	if (api_app(req, &ea) == -1)
		return;
	server_reply(req->conn, 200, supervisor_runtime_json(req->engine,
	    &ea));
	engine_app_put(&ea);
}

void
api_app_start(struct api_req *req)
{
	char	err[1024];

	api_runtime_answer(req, supervisor_start(req->engine, req->params[0],
	    err, sizeof err), err);
}

void
api_app_stop(struct api_req *req)
{
	char	err[1024];

	api_runtime_answer(req, supervisor_stop(req->engine, req->params[0],
	    err, sizeof err), err);
}

void
api_app_restart(struct api_req *req)
{
	char	err[1024];

	api_runtime_answer(req, supervisor_restart(req->engine,
	    req->params[0], err, sizeof err), err);
}

void
api_app_runtime(struct api_req *req)
{
	api_runtime_answer(req, 0, NULL);
}

/* The last 64 KiB of the engine-owned log. */
static char *
api_log_tail(const char *path, size_t *lenp)
{
	struct stat	 st;
	char		*buf;
	ssize_t		 n;
	off_t		 off = 0;
	int		 fd;

	*lenp = 0;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return xstrdup("");
	if (fstat(fd, &st) == 0 && st.st_size > API_LOG_TAIL)
		off = st.st_size - API_LOG_TAIL;
	buf = xmalloc(API_LOG_TAIL + 1);
	n = pread(fd, buf, API_LOG_TAIL, off);
	close(fd);
	*lenp = n > 0 ? (size_t)n : 0;
	buf[*lenp] = '\0';
	return buf;
}

void
api_app_logs(struct api_req *req)
{
	struct engine_app	 ea;
	char			*path, *text;
	size_t			 len;
	cJSON			*o;

	if (api_app(req, &ea) == -1)
		return;
	path = supervisor_log_path(req->engine, ea.app.id);
	text = api_log_tail(path, &len);
	if (req->query != NULL && strstr(req->query, "follow=1") != NULL)
		server_follow_start(req->conn, ea.app.id, text, len);
	else {
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "appId", ea.app.id);
		cJSON_AddStringToObject(o, "file", path);
		cJSON_AddStringToObject(o, "text", text);
		server_reply(req->conn, 200, o);
	}
	free(text);
	free(path);
	engine_app_put(&ea);
}

void
api_app_plan(struct api_req *req)
{
	struct engine_app	 ea;
	struct plan		 plan;
	char			 err[1024];
	cJSON			*o;

	if (api_app(req, &ea) == -1)
		return;
	if (ea.policy_error != NULL)
		server_reply_error(req->conn, 409, "policy cannot be used: %s",
		    ea.policy_error);
	else if (ea.app.error != NULL)
		server_reply_error(req->conn, 409, "%s", ea.app.error);
	else if (supervisor_plan(req->engine, &ea, &plan, err,
	    sizeof err) == -1)
		server_reply_error(req->conn, 409, "%s", err);
	else {
		o = plan_json(&plan);
		cJSON_AddStringToObject(o, "appId", ea.app.id);
		server_reply(req->conn, 200, o);
		plan_free(&plan);
	}
	engine_app_put(&ea);
}
