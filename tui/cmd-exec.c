/*
 * spacebox exec, jobs, approve, deny: one-off commands in the project
 * (the current folder or --cwd) at the engine's sandbox level.  The
 * command's output goes to standard output, spacebox's own notes to
 * standard error, and the exit status is the command's.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "xmalloc.h"

static const char *
ex_str(const cJSON *o, const char *k)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static int
ex_int(const cJSON *o, const char *k)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valueint : 0;
}

static void
ex_hosts(const char *label, const cJSON *a)
{
	const cJSON	*h;

	if (cJSON_GetArraySize(a) == 0)
		return;
	fprintf(stderr, "spacebox: %s:", label);
	cJSON_ArrayForEach(h, a) {
		if (cJSON_IsString(h))
			fprintf(stderr, " %s", h->valuestring);
	}
	fprintf(stderr, "\n");
}

/* A finished job: its output, what happened, and its exit status. */
static int
ex_result(struct client *cl, const cJSON *j)
{
	const char	*s, *state = ex_str(j, "state");
	int		 code;

	if (cl->json) {
		cmd_print_json(j);
		return state != NULL && strcmp(state, "done") == 0 ?
		    ex_int(j, "exitCode") : CMD_FAILED;
	}
	if (state != NULL && strcmp(state, "denied") == 0) {
		fprintf(stderr, "spacebox: job %d was not approved\n",
		    ex_int(j, "jobId"));
		return CMD_FAILED;
	}
	if ((s = ex_str(j, "output")) != NULL)
		fputs(s, stdout);
	fflush(stdout);
	if (ex_int(j, "droppedBytes") > 0)
		fprintf(stderr, "spacebox: output limited to 64 KiB; %d more "
		    "bytes were dropped\n", ex_int(j, "droppedBytes"));
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "timedOut")))
		fprintf(stderr, "spacebox: the command ran out of time and was "
		    "killed, with everything it started\n");
	s = ex_str(j, "sandbox");
	if (s != NULL && strcmp(s, "bubblewrap") != 0)
		fprintf(stderr, "spacebox: this command ran %s\n",
		    strcmp(s, "unsandboxed") == 0 ? "unsandboxed (no sandbox "
		    "on this machine)" : s);
	ex_hosts("hosts reached", cJSON_GetObjectItemCaseSensitive(j,
	    "hostsReached"));
	ex_hosts("hosts refused", cJSON_GetObjectItemCaseSensitive(j,
	    "hostsRefused"));
	code = ex_int(j, "exitCode");
	return code;
}

/* Wait (long poll) until the job leaves the approval queue or ends. */
static int
ex_wait(struct client *cl, int id, int for_end)
{
	struct client_resp	 resp;
	const cJSON		*j;
	char			*path;
	int			 rv;

	xasprintf(&path, "/api/exec/jobs/%d?wait=1", id);
	j = cmd_call(cl, "GET", path, NULL, &resp, &rv);
	free(path);
	if (j != NULL) {
		if (for_end)
			rv = ex_result(cl, j);
		else if (cl->json)
			cmd_print_json(j);
		else if (strcmp(ex_str(j, "state"), "denied") == 0) {
			fprintf(stderr, "spacebox: job %d was not approved\n",
			    id);
			rv = CMD_FAILED;
		} else if (ex_int(j, "port") > 0)
			printf("job %d runs; it listens on 127.0.0.1:%d\n", id,
			    ex_int(j, "port"));
		else
			printf("job %d runs in the background\n", id);
	}
	client_resp_free(&resp);
	return rv;
}

int
cmd_exec(struct client *cl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "cwd", required_argument, NULL, 'C' },
		{ "timeout", required_argument, NULL, 't' },
		{ "background", no_argument, NULL, 'b' },
		{ "server", no_argument, NULL, 's' },
		{ "outside", no_argument, NULL, 'o' },
		{ "reason", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	struct client_resp	 resp;
	const cJSON		*j;
	cJSON			*o, *a;
	char			 cwd[PATH_MAX], *body, *end, *abs = NULL;
	const char		*dir = NULL, *reason = NULL;
	long			 timeout = 0;
	int			 ch, i, bg = 0, server = 0, outside = 0, rv, id;

	optind = 0;
	/* "+": stop at the command; its own options are not ours. */
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (ch) {
		case 'C':
			dir = optarg;
			break;
		case 't':
			timeout = strtol(optarg, &end, 10);
			if (*end != '\0' || timeout < 1) {
				fprintf(stderr, "spacebox: --timeout \"%s\": "
				    "give seconds\n", optarg);
				return CMD_USAGE;
			}
			break;
		case 'b':
			bg = 1;
			break;
		case 's':
			server = 1;
			break;
		case 'o':
			outside = 1;
			break;
		case 'r':
			reason = optarg;
			break;
		case 'j':
			cl->json = 1;
			break;
		default:
			return cmd_usage(cmd_find("exec"));
		}
	}
	if (optind >= argc)
		return cmd_usage(cmd_find("exec"));
	if (outside && reason == NULL) {
		fprintf(stderr, "spacebox: --outside needs --reason TEXT: the "
		    "approval shows it\n");
		return CMD_USAGE;
	}
	/* The project is the current folder, or --cwd from it. */
	if (getcwd(cwd, sizeof cwd) == NULL) {
		fprintf(stderr, "spacebox: getcwd: %s\n", strerror(errno));
		return CMD_FAILED;
	}
	if (dir != NULL && dir[0] != '/') {
		xasprintf(&abs, "%s/%s", cwd, dir);
		dir = abs;
	} else if (dir == NULL)
		dir = cwd;
	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, "argv");
	for (i = optind; i < argc; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(argv[i]));
	cJSON_AddStringToObject(o, "cwd", dir);
	if (timeout > 0)
		cJSON_AddNumberToObject(o, "timeoutSecs", (double)timeout);
	cJSON_AddBoolToObject(o, "background", bg);
	cJSON_AddBoolToObject(o, "server", server);
	cJSON_AddBoolToObject(o, "outside", outside);
	if (reason != NULL)
		cJSON_AddStringToObject(o, "reason", reason);
	body = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	free(abs);
	j = cmd_call(cl, "POST", "/api/exec", body, &resp, &rv);
	cJSON_free(body);
	if (j == NULL) {
		client_resp_free(&resp);
		return rv;
	}
	id = ex_int(j, "jobId");
	if (resp.status == 202) {
		fprintf(stderr, "spacebox: job %d waits for your approval%s%s%s"
		    ": spacebox approve %d (or deny %d)\n", id,
		    server ? " to run a server" : "", outside ? " to run "
		    "outside the sandbox, because: " : "", outside ? reason :
		    "", id, id);
		client_resp_free(&resp);
		return ex_wait(cl, id, !bg && !server);
	}
	if (bg || server) {
		if (cl->json)
			cmd_print_json(j);
		else
			printf("job %d runs in the background\n", id);
		client_resp_free(&resp);
		return CMD_OK;
	}
	rv = ex_result(cl, j);
	client_resp_free(&resp);
	return rv;
}

static void
ex_job_line(const cJSON *j)
{
	char	extra[64] = "";

	if (ex_int(j, "port") > 0)
		snprintf(extra, sizeof extra, " 127.0.0.1:%d", ex_int(j,
		    "port"));
	printf("%-5d %-8s %-11s %7.1fs %8d  %s%s\n", ex_int(j, "jobId"),
	    ex_str(j, "state"), ex_str(j, "kind"), (double)ex_int(j,
	    "runtimeMs") / 1000, ex_int(j, "outputBytes"), ex_str(j, "command"),
	    extra);
	if (strcmp(ex_str(j, "state"), "pending") == 0)
		printf("      waits for approval (%s)%s%s\n", ex_str(j, "sandbox"),
		    ex_str(j, "reason") != NULL ? ": " : "",
		    ex_str(j, "reason") != NULL ? ex_str(j, "reason") : "");
}

/* jobs; jobs show ID; jobs stop ID */
int
cmd_jobs(struct client *cl, int argc, char **argv)
{
	struct client_resp	 resp;
	const cJSON		*j, *job;
	char			*path;
	int			 rv;

	if (argc == 1) {
		if ((j = cmd_call(cl, "GET", "/api/exec/jobs", NULL, &resp,
		    &rv)) != NULL) {
			if (cl->json)
				cmd_print_json(j);
			else {
				printf("%-5s %-8s %-11s %8s %8s  %s\n", "JOB",
				    "STATE", "KIND", "RUNTIME", "OUTPUT",
				    "COMMAND");
				cJSON_ArrayForEach(job,
				    cJSON_GetObjectItemCaseSensitive(j, "jobs"))
					ex_job_line(job);
			}
		}
		client_resp_free(&resp);
		return rv;
	}
	if (argc != 3 || (strcmp(argv[1], "show") != 0 &&
	    strcmp(argv[1], "stop") != 0) || strspn(argv[2],
	    "0123456789") != strlen(argv[2]) || argv[2][0] == '\0')
		return cmd_usage(cmd_find("jobs"));
	if (strcmp(argv[1], "stop") == 0) {
		xasprintf(&path, "/api/exec/jobs/%s/stop", argv[2]);
		j = cmd_call(cl, "POST", path, NULL, &resp, &rv);
	} else {
		xasprintf(&path, "/api/exec/jobs/%s", argv[2]);
		j = cmd_call(cl, "GET", path, NULL, &resp, &rv);
	}
	if (j != NULL) {
		if (cl->json)
			cmd_print_json(j);
		else if (strcmp(argv[1], "show") == 0) {
			ex_job_line(j);
			if (ex_str(j, "output") != NULL)
				fputs(ex_str(j, "output"), stdout);
		} else
			printf("job %s stopped\n", argv[2]);
	}
	client_resp_free(&resp);
	free(path);
	return rv;
}

/* approve ID; deny ID */
int
cmd_approve(struct client *cl, int argc, char **argv)
{
	struct client_resp	 resp;
	const cJSON		*j;
	char			*path;
	int			 rv;

	if (argc != 2 || argv[1][0] == '\0' ||
	    strspn(argv[1], "0123456789") != strlen(argv[1]))
		return cmd_usage(cmd_find(argv[0]));
	xasprintf(&path, "/api/exec/jobs/%s/%s", argv[1], argv[0]);
	if ((j = cmd_call(cl, "POST", path, NULL, &resp, &rv)) != NULL) {
		if (cl->json)
			cmd_print_json(j);
		else
			printf("job %s %s: %s\n", argv[1], strcmp(argv[0],
			    "approve") == 0 ? "approved" : "denied",
			    ex_str(j, "command"));
	}
	client_resp_free(&resp);
	free(path);
	return rv;
}
