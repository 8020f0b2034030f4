/*
 * spacebox apps: one line per app with what a person needs to decide,
 * and any problem (broken manifest, unusable policy) on its own line.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"

static const char *
cmd_apps_str(const cJSON *o, const char *key, const char *dflt)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

static void
cmd_apps_line(const cJSON *app)
{
	const cJSON	*sb, *hosts;
	char		 badge[32], net[32];
	const char	*rm, *nw, *problem;
	int		 n;

	sb = cJSON_GetObjectItemCaseSensitive(app, "sandbox");
	if (cJSON_IsObject(sb)) {
		rm = cmd_apps_str(sb, "readMode", "open");
		if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sb,
		    "enabled")))
			snprintf(badge, sizeof badge, "off");
		else
			snprintf(badge, sizeof badge, "%s%s", rm,
			    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sb,
			    "forced")) ? ", forced" : "");
		nw = cmd_apps_str(sb, "network", "all");
		hosts = cJSON_GetObjectItemCaseSensitive(sb, "hosts");
		n = cJSON_GetArraySize(hosts);
		if (strcmp(nw, "off") == 0)
			snprintf(net, sizeof net, "none");
		else if (strcmp(nw, "hosts") == 0)
			snprintf(net, sizeof net, "%d site%s", n,
			    n == 1 ? "" : "s");
		else
			snprintf(net, sizeof net, "all");
	} else {
		snprintf(badge, sizeof badge, "-");
		snprintf(net, sizeof net, "-");
	}
	printf("%-20s %-24.24s %-8s %-15s %s\n", cmd_apps_str(app, "id", "?"),
	    cmd_apps_str(app, "name", ""), cmd_apps_str(app, "state", "?"),
	    badge, net);
	if ((problem = cmd_apps_str(app, "error", NULL)) != NULL)
		printf("  ! %s\n", problem);
	if ((problem = cmd_apps_str(app, "policyError", NULL)) != NULL)
		printf("  ! policy: %s\n", problem);
}

int
cmd_apps(struct client *cl, int argc, char **argv)
{
	struct client_resp	 resp;
	const cJSON		*j, *app, *apps;
	int			 rv;

	if (argc != 1)
		return cmd_usage(cmd_find("apps"));
	if ((j = cmd_call(cl, "GET", "/api/space/apps", NULL, &resp,
	    &rv)) == NULL)
		goto out;
	apps = cJSON_GetObjectItemCaseSensitive(j, "apps");
	if (cl->json)
		cmd_print_json(j);
	else if (cJSON_GetArraySize(apps) == 0)
		printf("no apps in this workspace\n");
	else {
		printf("%-20s %-24s %-8s %-15s %s\n", "ID", "NAME", "STATE",
		    "SANDBOX", "NETWORK");
		cJSON_ArrayForEach(app, apps)
			cmd_apps_line(app);
	}
out:
	client_resp_free(&resp);
	return rv;
}
