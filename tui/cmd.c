/*
 * The command table and what every command shares: usage text, sending
 * a request, reporting a refusal in one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "log.h"
#include "tui.h"

const struct cmd_entry cmd_table[] = {
	{ "apps", "[--json]", "list the apps and their sandbox", cmd_apps },
	{ "sandbox", "get|put|set ID [options] [--json]",
	    "show or change an app's policy", cmd_sandbox },
	{ "allow", "ID HOST [--json]", "add a site to an app's site list",
	    cmd_allow },
	{ "start", "ID [--json]", "start an app and wait until it answers",
	    cmd_app },
	{ "stop", "ID [--json]", "stop an app", cmd_app },
	{ "restart", "ID [--json]", "restart an app with its current policy",
	    cmd_app },
	{ "status", "ID [--json]", "what the running app actually got",
	    cmd_app },
	{ "logs", "ID [-f] [--json]", "print (or follow) an app's log",
	    cmd_logs },
	{ "plan", "ID [--json]", "show the sandbox an app would get",
	    cmd_plan },
	{ "exec", "[--cwd DIR] [--timeout S] [--background] [--server] "
	    "[--outside --reason TEXT] [--json] -- CMD [ARG...]",
	    "run one command in the sandbox", cmd_exec },
	{ "jobs", "[show|stop JOB] [--json]", "list, show or stop commands",
	    cmd_jobs },
	{ "approve", "JOB [--json]", "approve a waiting server or outside "
	    "command", cmd_approve },
	{ "deny", "JOB [--json]", "refuse a waiting command", cmd_approve },
	{ "keys", "", "list the keys of the interface", cmd_keys },
	{ NULL, NULL, NULL, NULL }
};

const struct cmd_entry *
cmd_find(const char *name)
{
	const struct cmd_entry	*c;

	for (c = cmd_table; c->name != NULL; c++) {
		if (strcmp(c->name, name) == 0)
			return c;
	}
	return NULL;
}

void
cmd_usage_all(FILE *f)
{
	const struct cmd_entry	*c;

	fprintf(f, "usage: spacebox [-hV] [-S socket] [--workspace dir] "
	    "[--no-start] [--json]\n"
	    "                [--no-color] [--ascii] [--no-mouse] "
	    "[command ...]\n");
	for (c = cmd_table; c->name != NULL; c++)
		fprintf(f, "       spacebox %s %s\n", c->name, c->usage);
}

int
cmd_usage(const struct cmd_entry *c)
{
	fprintf(stderr, "usage: spacebox %s %s\n", c->name, c->usage);
	return CMD_USAGE;
}

const cJSON *
cmd_call(struct client *cl, const char *method, const char *path,
    const char *body, struct client_resp *resp, int *rv)
{
	char	err[1024];

	if (client_request(cl, method, path, body, resp, err,
	    sizeof err) == -1) {
		fprintf(stderr, "spacebox: %s\n", err);
		*rv = CMD_FAILED;
		return NULL;
	}
	if (resp->status < 200 || resp->status > 299) {
		fprintf(stderr, "spacebox: %s\n", client_error(resp));
		*rv = CMD_FAILED;
		return NULL;
	}
	if (resp->json == NULL) {
		fprintf(stderr, "spacebox: the engine's answer is not JSON\n");
		*rv = CMD_FAILED;
		return NULL;
	}
	*rv = CMD_OK;
	return resp->json;
}

/* An id goes into a URL path: refuse anything that could escape it. */
int
cmd_id_ok(const char *id)
{
	if (id[0] == '\0' || strlen(id) > 80 ||
	    strspn(id, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "0123456789_-") != strlen(id)) {
		fprintf(stderr, "spacebox: app id \"%.100s\": only letters, "
		    "digits, '_' and '-' are allowed\n", id);
		return 0;
	}
	return 1;
}

void
cmd_print_json(const cJSON *j)
{
	char	*s;

	if ((s = cJSON_Print(j)) == NULL)
		return;
	printf("%s\n", s);
	cJSON_free(s);
}

/* The interface's keys, from the table its help screen uses. */
int
cmd_keys(struct client *cl, int argc, char **argv)
{
	static const char *const ctx[] = {
		"everywhere", "list", "dialog", "picker", "view"
	};
	const struct tui_key	*k;

	if (argc != 1)
		return cmd_usage(cmd_find("keys"));
	for (k = tui_keys; k->name != NULL; k++)
		printf("%s\t%s\t%s\n", ctx[k->ctx], k->name, k->help);
	return CMD_OK;
}
