/*
 * spacebox sandbox get|put|set and spacebox allow: read and change one
 * app's policy.  Validation happens in the engine, so the CLI, the TUI
 * and the API all refuse the same input with the same message.
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

#define CMD_MAX_STDIN	(1024 * 1024)

static char *
cmd_path(const char *id, const char *tail)
{
	char	*p;

	xasprintf(&p, "/api/space/apps/%s/sandbox%s", id, tail);
	return p;
}

static void
cmd_list(const char *label, const cJSON *arr, const char *none)
{
	const cJSON	*v;
	int		 first = 1;

	printf("%-12s ", label);
	cJSON_ArrayForEach(v, arr) {
		if (cJSON_IsString(v))
			printf("%s%s", first ? "" : ", ", v->valuestring);
		else if (cJSON_IsNumber(v))
			printf("%s%d", first ? "" : ", ", v->valueint);
		first = 0;
	}
	printf("%s\n", first ? none : "");
}

static void
cmd_show_config(const cJSON *cfg)
{
	const cJSON	*v, *f;
	const char	*s;

	v = cJSON_GetObjectItemCaseSensitive(cfg, "enabled");
	printf("%-12s %s%s\n", "sandbox", cJSON_IsTrue(v) ? "on" : "off",
	    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(cfg, "forced")) ?
	    " (forced by the app's manifest)" : "");
	v = cJSON_GetObjectItemCaseSensitive(cfg, "readMode");
	printf("%-12s %s\n", "reads", cJSON_IsString(v) ? v->valuestring :
	    "?");
	printf("%-12s ", "folders");
	v = cJSON_GetObjectItemCaseSensitive(cfg, "folders");
	if (cJSON_GetArraySize(v) == 0)
		printf("none granted\n");
	else {
		printf("\n");
		cJSON_ArrayForEach(f, v) {
			const cJSON *p = cJSON_GetObjectItemCaseSensitive(f,
			    "path");

			printf("  %s (%s)\n", cJSON_IsString(p) ?
			    p->valuestring : "?", cJSON_IsTrue(
			    cJSON_GetObjectItemCaseSensitive(f, "readOnly")) ?
			    "read-only" : "read-write");
		}
	}
	v = cJSON_GetObjectItemCaseSensitive(cfg, "network");
	s = cJSON_IsString(v) ? v->valuestring : "?";
	printf("%-12s %s\n", "network", strcmp(s, "all") == 0 ? "everything" :
	    strcmp(s, "off") == 0 ? "nothing" : strcmp(s, "hosts") == 0 ?
	    "only these sites" : s);
	cmd_list("sites", cJSON_GetObjectItemCaseSensitive(cfg, "hosts"),
	    "none");
	v = cJSON_GetObjectItemCaseSensitive(cfg, "daemonApi");
	printf("%-12s %s\n", "engine API", cJSON_IsTrue(v) ? "allowed" :
	    "blocked");
	cmd_list("local ports", cJSON_GetObjectItemCaseSensitive(cfg,
	    "loopback"), "none");
}

/* The proxy's counters and the sites the app wanted but was refused. */
static void
cmd_show_proxy(const char *id, const cJSON *proxy)
{
	const cJSON	*stats, *wants, *w;
	int		 shown = 0;

	if (!cJSON_IsObject(proxy))
		return;
	stats = cJSON_GetObjectItemCaseSensitive(proxy, "stats");
	printf("%-12s 127.0.0.1:%d, %d allowed, %d refused\n", "proxy",
	    cJSON_GetObjectItemCaseSensitive(proxy, "port")->valueint,
	    cJSON_GetObjectItemCaseSensitive(stats, "allowed")->valueint,
	    cJSON_GetObjectItemCaseSensitive(stats, "denied")->valueint);
	wants = cJSON_GetObjectItemCaseSensitive(stats, "recentDenied");
	cJSON_ArrayForEach(w, wants) {
		if (!cJSON_IsString(w))
			continue;
		printf("%s + %s", shown++ == 0 ? "wants       " : "",
		    w->valuestring);
	}
	if (shown > 0)
		printf("\n%-12s 'spacebox allow %s HOST' adds one\n", "", id);
}

static int
cmd_sandbox_get(struct client *cl, const char *id)
{
	struct client_resp	 resp;
	const cJSON		*j, *eff, *v;
	char			*path;
	int			 rv;

	path = cmd_path(id, "");
	if ((j = cmd_call(cl, "GET", path, NULL, &resp, &rv)) != NULL) {
		if (cl->json)
			cmd_print_json(j);
		else {
			printf("%-12s %s\n", "app", id);
			cmd_show_config(cJSON_GetObjectItemCaseSensitive(j,
			    "config"));
			eff = cJSON_GetObjectItemCaseSensitive(j, "effective");
			v = cJSON_GetObjectItemCaseSensitive(eff, "isolation");
			printf("%-12s %s\n", "isolation", cJSON_IsString(v) ?
			    v->valuestring : "?");
			v = cJSON_GetObjectItemCaseSensitive(eff, "note");
			if (cJSON_IsString(v))
				printf("%-12s %s\n", "note", v->valuestring);
			cmd_show_proxy(id, cJSON_GetObjectItemCaseSensitive(j,
			    "proxy"));
		}
	}
	client_resp_free(&resp);
	free(path);
	return rv;
}

/* PUT or POST a change and report what it means for the running app. */
static int
cmd_sandbox_send(struct client *cl, const char *method, const char *path,
    const char *body)
{
	struct client_resp	 resp;
	const cJSON		*j;
	int			 rv;

	if ((j = cmd_call(cl, method, path, body, &resp, &rv)) != NULL) {
		if (cl->json)
			cmd_print_json(j);
		else {
			cmd_show_config(cJSON_GetObjectItemCaseSensitive(j,
			    "config"));
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j,
			    "hostsAppliedLive")))
				printf("saved; the site list applies to the "
				    "running app now\n");
			else
				printf("saved\n");
			if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j,
			    "restartRequired")))
				printf("restart the app for the other changes "
				    "to apply\n");
		}
	}
	client_resp_free(&resp);
	return rv;
}

static int
cmd_sandbox_put(struct client *cl, const char *id)
{
	char	*buf, *path;
	size_t	 len = 0;
	ssize_t	 n;
	int	 rv;

	buf = xmalloc(CMD_MAX_STDIN + 1);
	while (len <= CMD_MAX_STDIN) {
		n = read(STDIN_FILENO, buf + len, CMD_MAX_STDIN + 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (len > CMD_MAX_STDIN) {
		fprintf(stderr, "spacebox: policy on standard input is larger "
		    "than 1 MiB\n");
		free(buf);
		return CMD_FAILED;
	}
	buf[len] = '\0';
	path = cmd_path(id, "");
	rv = cmd_sandbox_send(cl, "PUT", path, buf);
	free(path);
	free(buf);
	return rv;
}

static int
cmd_onoff(const char *opt, const char *arg, int *out)
{
	if (strcmp(arg, "on") == 0)
		*out = 1;
	else if (strcmp(arg, "off") == 0)
		*out = 0;
	else {
		fprintf(stderr, "spacebox: %s \"%s\": must be on or off\n",
		    opt, arg);
		return -1;
	}
	return 0;
}

/* Replace (or, on the first use, empty) one list in the config. */
static cJSON *
cmd_fresh_list(cJSON *cfg, const char *key, int *replaced)
{
	if (!*replaced) {
		cJSON_ReplaceItemInObjectCaseSensitive(cfg, key,
		    cJSON_CreateArray());
		*replaced = 1;
	}
	return cJSON_GetObjectItemCaseSensitive(cfg, key);
}

static int
cmd_set_folder(cJSON *cfg, const char *arg, int *replaced)
{
	char	 cwd[PATH_MAX], *path, *colon;
	cJSON	*f;
	int	 ro = 0;

	path = xstrdup(arg);
	if ((colon = strrchr(path, ':')) != NULL &&
	    (strcmp(colon, ":ro") == 0 || strcmp(colon, ":rw") == 0)) {
		ro = strcmp(colon, ":ro") == 0;
		*colon = '\0';
	}
	if (path[0] != '/' && getcwd(cwd, sizeof cwd) != NULL) {
		char *abs;

		xasprintf(&abs, "%s/%s", cwd, path);
		free(path);
		path = abs;
	}
	f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "path", path);
	cJSON_AddBoolToObject(f, "readOnly", ro);
	cJSON_AddItemToArray(cmd_fresh_list(cfg, "folders", replaced), f);
	free(path);
	return 0;
}

static int
cmd_set_port(cJSON *cfg, const char *arg, int *replaced)
{
	char	*end;
	long	 port;

	errno = 0;
	port = strtol(arg, &end, 10);
	if (errno != 0 || *end != '\0' || end == arg) {
		fprintf(stderr, "spacebox: --loopback \"%s\": must be a port "
		    "number\n", arg);
		return -1;
	}
	/* Range checks are the engine's, so the message is the same. */
	cJSON_AddItemToArray(cmd_fresh_list(cfg, "loopback", replaced),
	    cJSON_CreateNumber((double)port));
	return 0;
}

static int
cmd_sandbox_set(struct client *cl, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "enabled", required_argument, NULL, 'e' },
		{ "read-mode", required_argument, NULL, 'r' },
		{ "network", required_argument, NULL, 'n' },
		{ "host", required_argument, NULL, 'H' },
		{ "no-hosts", no_argument, NULL, 'h' },
		{ "folder", required_argument, NULL, 'F' },
		{ "no-folders", no_argument, NULL, 'f' },
		{ "daemon-api", required_argument, NULL, 'd' },
		{ "loopback", required_argument, NULL, 'L' },
		{ "no-loopback", no_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 }
	};
	struct client_resp	 resp;
	const cJSON		*j;
	cJSON			*cfg = NULL;
	char			*path = NULL, *body;
	const char		*id;
	int			 ch, rv, flag, changed = 0;
	int			 hosts_r = 0, folders_r = 0, ports_r = 0;

	/*
	 * First pass: find the id (getopt moves it behind the options) and
	 * refuse bad usage before asking the engine anything.
	 */
	optind = 0;
	opterr = 1;
	while ((ch = getopt_long(argc - 1, argv + 1, "", longopts,
	    NULL)) != -1) {
		if (ch == '?')
			return cmd_usage(cmd_find("sandbox"));
		changed += ch != 'j';
	}
	if (optind != argc - 2)
		return cmd_usage(cmd_find("sandbox"));
	if (changed == 0) {
		fprintf(stderr, "spacebox: sandbox set: nothing to change\n");
		return cmd_usage(cmd_find("sandbox"));
	}
	id = argv[1 + optind];
	if (!cmd_id_ok(id))
		return CMD_USAGE;

	/* Read the current policy; set changes only what is named. */
	memset(&resp, 0, sizeof resp);
	path = cmd_path(id, "");
	if ((j = cmd_call(cl, "GET", path, NULL, &resp, &rv)) == NULL)
		goto out;
	cfg = cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(j, "config"),
	    1);
	client_resp_free(&resp);
	if (!cJSON_IsObject(cfg)) {
		fprintf(stderr, "spacebox: the engine's answer has no "
		    "config\n");
		rv = CMD_FAILED;
		goto out;
	}

	optind = 0;
	rv = CMD_USAGE;
	while ((ch = getopt_long(argc - 1, argv + 1, "", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'e':
		case 'd':
			if (cmd_onoff(ch == 'e' ? "--enabled" : "--daemon-api",
			    optarg, &flag) == -1)
				goto out;
			cJSON_ReplaceItemInObjectCaseSensitive(cfg,
			    ch == 'e' ? "enabled" : "daemonApi",
			    cJSON_CreateBool(flag));
			break;
		case 'r':
			cJSON_ReplaceItemInObjectCaseSensitive(cfg, "readMode",
			    cJSON_CreateString(optarg));
			break;
		case 'n':
			cJSON_ReplaceItemInObjectCaseSensitive(cfg, "network",
			    cJSON_CreateString(optarg));
			break;
		case 'H':
			cJSON_AddItemToArray(cmd_fresh_list(cfg, "hosts",
			    &hosts_r), cJSON_CreateString(optarg));
			break;
		case 'h':
			cmd_fresh_list(cfg, "hosts", &hosts_r);
			break;
		case 'F':
			cmd_set_folder(cfg, optarg, &folders_r);
			break;
		case 'f':
			cmd_fresh_list(cfg, "folders", &folders_r);
			break;
		case 'L':
			if (cmd_set_port(cfg, optarg, &ports_r) == -1)
				goto out;
			break;
		case 'l':
			cmd_fresh_list(cfg, "loopback", &ports_r);
			break;
		case 'j':
			cl->json = 1;
			break;
		default:
			cmd_usage(cmd_find("sandbox"));
			goto out;
		}
	}
	body = cJSON_PrintUnformatted(cfg);
	rv = cmd_sandbox_send(cl, "PUT", path, body);
	cJSON_free(body);
out:
	client_resp_free(&resp);
	cJSON_Delete(cfg);
	free(path);
	return rv;
}

int
cmd_sandbox(struct client *cl, int argc, char **argv)
{
	const struct cmd_entry	*self = cmd_find("sandbox");

	if (argc < 3)
		return cmd_usage(self);
	if (strcmp(argv[1], "set") == 0)
		return cmd_sandbox_set(cl, argc, argv);
	if (argc != 3)
		return cmd_usage(self);
	if (!cmd_id_ok(argv[2]))
		return CMD_USAGE;
	if (strcmp(argv[1], "get") == 0)
		return cmd_sandbox_get(cl, argv[2]);
	if (strcmp(argv[1], "put") == 0)
		return cmd_sandbox_put(cl, argv[2]);
	return cmd_usage(self);
}

int
cmd_allow(struct client *cl, int argc, char **argv)
{
	struct client_resp	 resp;
	const cJSON		*j, *net;
	cJSON			*o;
	char			*path, *body;
	int			 rv;

	if (argc != 3)
		return cmd_usage(cmd_find("allow"));
	if (!cmd_id_ok(argv[1]))
		return CMD_USAGE;
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "host", argv[2]);
	body = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	path = cmd_path(argv[1], "/hosts");
	if ((j = cmd_call(cl, "POST", path, body, &resp, &rv)) != NULL) {
		if (cl->json)
			cmd_print_json(j);
		else {
			net = cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetObjectItemCaseSensitive(j, "config"),
			    "network");
			cmd_list("sites", cJSON_GetObjectItemCaseSensitive(
			    cJSON_GetObjectItemCaseSensitive(j, "config"),
			    "hosts"), "none");
			if (cJSON_IsString(net) &&
			    strcmp(net->valuestring, "hosts") != 0)
				printf("note: network is \"%s\", so the site "
				    "list is not in use; 'spacebox sandbox set "
				    "%s --network hosts' turns it on\n",
				    net->valuestring, argv[1]);
		}
	}
	client_resp_free(&resp);
	cJSON_free(body);
	free(path);
	return rv;
}
