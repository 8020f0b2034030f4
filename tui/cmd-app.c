/*
 * spacebox start|stop|restart|status|logs|plan: running apps.  start and
 * restart wait until the app answers on its health path, or say why not.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd.h"
#include "xmalloc.h"

#define CMD_WAIT_MS	40000

static const char *
cmd_str(const cJSON *o, const char *key)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void
cmd_show_runtime(const cJSON *j)
{
	const cJSON	*p, *g, *v;
	const char	*s;

	printf("%-12s %s\n", "state", cmd_str(j, "state"));
	p = cJSON_GetObjectItemCaseSensitive(j, "process");
	if (cJSON_IsObject(p)) {
		printf("%-12s %d\n", "pid", cJSON_GetObjectItemCaseSensitive(p,
		    "pid")->valueint);
		printf("%-12s 127.0.0.1:%d\n", "port",
		    cJSON_GetObjectItemCaseSensitive(p, "port")->valueint);
		printf("%-12s %.0f s\n", "uptime",
		    cJSON_GetObjectItemCaseSensitive(p, "uptimeMs")->valuedouble
		    / 1000);
		printf("%-12s %s\n", "isolation", cmd_str(p, "isolation"));
		if ((s = cmd_str(p, "logLine")) != NULL)
			printf("%-12s %s\n", "launch", s);
		g = cJSON_GetObjectItemCaseSensitive(p, "grants");
		cJSON_ArrayForEach(v, g)
			printf("%-12s %s (%s, %s)\n", "grant", cmd_str(v,
			    "path"), cmd_str(v, "access"), cmd_str(v, "why"));
	}
	printf("%-12s %d\n", "restarts", cJSON_GetObjectItemCaseSensitive(j,
	    "restarts")->valueint);
	if ((s = cmd_str(j, "lastExit")) != NULL)
		printf("%-12s %s\n", "last exit", s);
	if ((v = cJSON_GetObjectItemCaseSensitive(j, "backoffMs")) != NULL)
		printf("%-12s restarting in %.0f s\n", "backoff",
		    v->valuedouble / 1000);
	if ((s = cmd_str(j, "error")) != NULL)
		printf("%-12s %s\n", "problem", s);
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j,
	    "restartRequired")))
		printf("%-12s saved changes apply at the next restart\n",
		    "restart");
}

/* Poll the runtime until the app is running or has given up. */
static int
cmd_wait(struct client *cl, const char *id)
{
	struct client_resp	 resp;
	const cJSON		*j;
	const char		*state;
	char			*path;
	int			 rv = CMD_FAILED, waited;

	xasprintf(&path, "/api/space/apps/%s/runtime", id);
	for (waited = 0; waited < CMD_WAIT_MS; waited += 200) {
		if ((j = cmd_call(cl, "GET", path, NULL, &resp, &rv)) == NULL)
			break;
		state = cmd_str(j, "state");
		if (state != NULL && strcmp(state, "starting") != 0 &&
		    strcmp(state, "stopping") != 0) {
			if (cl->json)
				cmd_print_json(j);
			else
				cmd_show_runtime(j);
			rv = strcmp(state, "running") == 0 ? CMD_OK :
			    CMD_FAILED;
			client_resp_free(&resp);
			break;
		}
		client_resp_free(&resp);
		usleep(200 * 1000);
	}
	free(path);
	return rv;
}

static int
cmd_app_post(struct client *cl, const char *verb, const char *id)
{
	struct client_resp	 resp;
	const cJSON		*j;
	char			*path;
	int			 rv;

	xasprintf(&path, "/api/space/apps/%s/%s", id, verb);
	j = cmd_call(cl, "POST", path, NULL, &resp, &rv);
	free(path);
	client_resp_free(&resp);
	if (j == NULL)
		return rv;
	if (strcmp(verb, "stop") == 0) {
		/* Wait for the stop to finish, so the next step sees it. */
		rv = cmd_wait(cl, id);
		return rv == CMD_FAILED ? CMD_OK : rv;
	}
	return cmd_wait(cl, id);
}

int
cmd_app(struct client *cl, int argc, char **argv)
{
	const struct cmd_entry	*self = cmd_find(argv[0]);
	struct client_resp	 resp;
	const cJSON		*j;
	char			*path;
	int			 rv;

	if (argc != 2)
		return cmd_usage(self);
	if (!cmd_id_ok(argv[1]))
		return CMD_USAGE;
	if (strcmp(argv[0], "status") != 0)
		return cmd_app_post(cl, argv[0], argv[1]);
	xasprintf(&path, "/api/space/apps/%s/runtime", argv[1]);
	if ((j = cmd_call(cl, "GET", path, NULL, &resp, &rv)) != NULL) {
		if (cl->json)
			cmd_print_json(j);
		else
			cmd_show_runtime(j);
	}
	client_resp_free(&resp);
	free(path);
	return rv;
}

int
cmd_plan(struct client *cl, int argc, char **argv)
{
	struct client_resp	 resp;
	const cJSON		*j, *v;
	char			*path;
	int			 rv;

	if (argc != 2)
		return cmd_usage(cmd_find("plan"));
	if (!cmd_id_ok(argv[1]))
		return CMD_USAGE;
	xasprintf(&path, "/api/space/apps/%s/plan", argv[1]);
	if ((j = cmd_call(cl, "GET", path, NULL, &resp, &rv)) != NULL) {
		if (cl->json)
			cmd_print_json(j);
		else {
			printf("%s\n", cmd_str(j, "logLine"));
			printf("argv:\n");
			cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(
			    j, "argv"))
				printf("  %s\n", v->valuestring);
			printf("env:\n");
			cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(
			    j, "env"))
				printf("  %s\n", v->valuestring);
			cJSON_ArrayForEach(v, cJSON_GetObjectItemCaseSensitive(
			    j, "warnings"))
				printf("warning: %s\n", v->valuestring);
		}
	}
	client_resp_free(&resp);
	free(path);
	return rv;
}

/* logs: the tail; -f follows until interrupted. */
int
cmd_logs(struct client *cl, int argc, char **argv)
{
	struct client_resp	 resp;
	const cJSON		*j;
	const char		*text;
	char			*path;
	int			 rv, follow = 0;

	if (argc == 3 && strcmp(argv[2], "-f") == 0)
		follow = 1;
	else if (argc != 2)
		return cmd_usage(cmd_find("logs"));
	if (!cmd_id_ok(argv[1]))
		return CMD_USAGE;
	if (follow) {
		xasprintf(&path, "/api/space/apps/%s/logs?follow=1", argv[1]);
		rv = client_stream(cl, path);
		free(path);
		return rv == 0 ? CMD_OK : CMD_FAILED;
	}
	xasprintf(&path, "/api/space/apps/%s/logs", argv[1]);
	if ((j = cmd_call(cl, "GET", path, NULL, &resp, &rv)) != NULL) {
		if (cl->json)
			cmd_print_json(j);
		else if ((text = cmd_str(j, "text")) != NULL)
			fputs(text, stdout);
	}
	client_resp_free(&resp);
	free(path);
	return rv;
}
