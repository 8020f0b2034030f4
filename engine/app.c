/*
 * Space App manifests.  A broken manifest never takes the engine down: it
 * becomes an app in an error state whose reason the user can read.
 */
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "paths.h"
#include "xmalloc.h"

#define APP_MANIFEST_MAX	(1024 * 1024)

/* Folders the engine owns under the state root; see app_id_check. */
static const char *const app_reserved[] = {
	"sandbox", "apps", "space-apps", "space-apps-data", "space-app-data",
	"run", "workspace", "logs", "tmp", NULL
};

int
app_id_check(const char *id, char *err, size_t errlen)
{
	size_t	i, len = strlen(id);
	char	shown[128], *s;
	cJSON	*v;

	/* Show the id escaped: it may hold anything, even line breaks. */
	v = cJSON_CreateString(id);
	if ((s = cJSON_PrintUnformatted(v)) != NULL) {
		snprintf(shown, sizeof shown, "%s", s);
		cJSON_free(s);
	} else
		snprintf(shown, sizeof shown, "?");
	cJSON_Delete(v);
	if (len == 0 || len > APP_ID_MAX) {
		snprintf(err, errlen, "app id %s: must be 1 to %d "
		    "characters", shown, APP_ID_MAX);
		return -1;
	}
	for (i = 0; i < len; i++) {
		if (!isalnum((unsigned char)id[i]) && id[i] != '_' &&
		    id[i] != '-') {
			snprintf(err, errlen, "app id %s: only "
			    "letters, digits, '_' and '-' are allowed", shown);
			return -1;
		}
	}
	/*
	 * The data dir <root>/<id> must never be one of the engine's own
	 * folders; compare without case so a case-insensitive file system
	 * cannot alias them either.
	 */
	for (i = 0; app_reserved[i] != NULL; i++) {
		if (strcasecmp(id, app_reserved[i]) == 0) {
			snprintf(err, errlen, "app id \"%s\": reserved, it "
			    "names one of the engine's own folders; rename "
			    "the app", id);
			return -1;
		}
	}
	return 0;
}

static char *
app_read_file(const char *path, char *err, size_t errlen)
{
	FILE	*f;
	char	*buf;
	size_t	 n;

	if ((f = fopen(path, "re")) == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	buf = xmalloc(APP_MANIFEST_MAX + 1);
	n = fread(buf, 1, APP_MANIFEST_MAX + 1, f);
	fclose(f);
	if (n > APP_MANIFEST_MAX) {
		snprintf(err, errlen, "%s: larger than 1 MiB", path);
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

static const cJSON *
app_get2(const cJSON *o, const char *a, const char *b)
{
	const cJSON	*v;

	if ((v = cJSON_GetObjectItemCaseSensitive(o, a)) != NULL)
		return v;
	return b != NULL ? cJSON_GetObjectItemCaseSensitive(o, b) : NULL;
}

/* Copy a manifest value into the policy form under key, if present. */
static void
app_decl_copy(cJSON *out, const cJSON *decl, const char *key,
    const char *alias)
{
	const cJSON	*v;

	if ((v = app_get2(decl, key, alias)) != NULL)
		cJSON_AddItemToObject(out, key, cJSON_Duplicate(v, 1));
}

static cJSON *
app_decl_folder(const cJSON *f, const char *home)
{
	const cJSON	*path, *ro;
	cJSON		*o;
	char		*p;

	if (cJSON_IsString(f))
		path = f, ro = NULL;
	else if (cJSON_IsObject(f)) {
		path = cJSON_GetObjectItemCaseSensitive(f, "path");
		ro = app_get2(f, "readOnly", "read_only");
	} else
		return cJSON_Duplicate(f, 1);	/* policy_from_json refuses */
	o = cJSON_CreateObject();
	if (cJSON_IsString(path)) {
		if (path->valuestring[0] == '~' && (path->valuestring[1] ==
		    '/' || path->valuestring[1] == '\0') && home != NULL) {
			xasprintf(&p, "%s%s", home, path->valuestring + 1);
			cJSON_AddStringToObject(o, "path", p);
			free(p);
		} else
			cJSON_AddStringToObject(o, "path", path->valuestring);
	}
	if (ro != NULL)
		cJSON_AddItemToObject(o, "readOnly", cJSON_Duplicate(ro, 1));
	return o;
}

/*
 * Turn the manifest's sandbox block, with its aliases, into the policy's
 * JSON form so that one validator checks both.
 */
static int
app_decl(struct app *a, const cJSON *decl, const struct guard_env *env)
{
	const cJSON	*v, *f;
	cJSON		*o, *arr;
	char		 why[1024];
	const char	*s;
	int		 force = 0;

	if (!cJSON_IsObject(decl)) {
		xasprintf(&a->error, "%s: \"sandbox\" must be an object",
		    APP_MANIFEST);
		return -1;
	}
	o = cJSON_CreateObject();
	if ((v = app_get2(decl, "force", "required")) != NULL) {
		if (!cJSON_IsBool(v)) {
			xasprintf(&a->error, "%s: sandbox.force must be true "
			    "or false", APP_MANIFEST);
			cJSON_Delete(o);
			return -1;
		}
		force = cJSON_IsTrue(v);
	}
	cJSON_AddBoolToObject(o, "forced", force);
	if ((v = cJSON_GetObjectItemCaseSensitive(decl, "enabled")) != NULL)
		cJSON_AddItemToObject(o, "enabled", cJSON_Duplicate(v, 1));
	else
		cJSON_AddBoolToObject(o, "enabled", force);
	app_decl_copy(o, decl, "readMode", "read_mode");
	if ((v = cJSON_GetObjectItemCaseSensitive(decl, "network")) != NULL) {
		s = cJSON_IsString(v) ? v->valuestring : "";
		if (strcmp(s, "off") == 0 || strcmp(s, "none") == 0 ||
		    strcmp(s, "no") == 0)
			s = "off";
		else if (strcmp(s, "hosts") == 0 ||
		    strcmp(s, "allowlist") == 0 || strcmp(s, "sites") == 0)
			s = "hosts";
		else
			s = "all";
		cJSON_AddStringToObject(o, "network", s);
	}
	app_decl_copy(o, decl, "hosts", NULL);
	app_decl_copy(o, decl, "daemonApi", "daemon_api");
	app_decl_copy(o, decl, "loopback", NULL);
	if ((v = cJSON_GetObjectItemCaseSensitive(decl, "folders")) != NULL) {
		if (cJSON_IsArray(v)) {
			arr = cJSON_AddArrayToObject(o, "folders");
			cJSON_ArrayForEach(f, v)
				cJSON_AddItemToArray(arr,
				    app_decl_folder(f, env->home));
		} else
			cJSON_AddItemToObject(o, "folders",
			    cJSON_Duplicate(v, 1));
	}
	if (policy_from_json(&a->decl, o, env, POLICY_FROM_STORE, why,
	    sizeof why) == -1) {
		xasprintf(&a->error, "%s: sandbox declaration refused: %s",
		    APP_MANIFEST, why);
		cJSON_Delete(o);
		a->decl.forced = force;
		return -1;
	}
	cJSON_Delete(o);
	a->has_decl = 1;
	return 0;
}

static int
app_runtime(struct app *a, const cJSON *rt)
{
	const cJSON	*v;

	if (rt == NULL)
		return 0;
	if (!cJSON_IsObject(rt)) {
		xasprintf(&a->error, "%s: \"runtime\" must be an object",
		    APP_MANIFEST);
		return -1;
	}
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(rt, "kind")))
		a->kind = xstrdup(v->valuestring);
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(rt, "start")))
		a->start = xstrdup(v->valuestring);
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(rt,
	    "healthPath")) && v->valuestring[0] == '/')
		a->health_path = xstrdup(v->valuestring);
	if ((v = cJSON_GetObjectItemCaseSensitive(rt, "port")) != NULL &&
	    !cJSON_IsNull(v)) {
		if (!cJSON_IsNumber(v) || v->valuedouble < 0 ||
		    v->valuedouble > 65535 ||
		    v->valuedouble != (double)(int)v->valuedouble) {
			xasprintf(&a->error, "%s: runtime.port must be a port "
			    "number (0 lets the engine pick)", APP_MANIFEST);
			return -1;
		}
		a->port = v->valueint;
	}
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(rt, "mode")))
		a->background = strcmp(v->valuestring, "background") == 0;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(rt,
	    "idleTimeoutSecs")) && v->valuedouble > 0 &&
	    v->valuedouble < 86400 * 365)
		a->idle_secs = v->valueint < APP_IDLE_MIN ? APP_IDLE_MIN :
		    v->valueint;
	if (cJSON_IsObject(v = cJSON_GetObjectItemCaseSensitive(rt, "env")))
		a->env = cJSON_Duplicate(v, 1);
	return 0;
}

int
app_read(const char *apps_dir, const char *id, const struct guard_env *env,
    struct app *a)
{
	char		 dir[PATH_MAX], path[PATH_MAX], why[PATH_MAX + 256];
	struct stat	 st;
	cJSON		*m;
	const cJSON	*v;
	char		*text;

	memset(a, 0, sizeof *a);
	policy_init(&a->decl);
	a->id = xstrdup(id);
	a->idle_secs = APP_IDLE_DEFAULT;
	a->health_path = NULL;
	if (app_id_check(id, why, sizeof why) == -1) {
		snprintf(path, sizeof path, "%s/%s", apps_dir, id);
		if (stat(path, &st) == -1)
			goto missing;
		a->error = xstrdup(why);
		return 0;
	}
	snprintf(path, sizeof path, "%s/%s", apps_dir, id);
	if (realpath(path, dir) == NULL || stat(dir, &st) == -1 ||
	    !S_ISDIR(st.st_mode))
		goto missing;
	a->dir = xstrdup(dir);

	if (snprintf(path, sizeof path, "%s/%s", dir, APP_MANIFEST) >=
	    (int)sizeof path) {
		a->error = xstrdup("install folder path too long");
		return 0;
	}
	if ((text = app_read_file(path, why, sizeof why)) == NULL) {
		a->error = xstrdup(why);
		return 0;
	}
	m = cJSON_Parse(text);
	free(text);
	if (m == NULL || !cJSON_IsObject(m)) {
		xasprintf(&a->error, "%s: not a valid JSON object", path);
		cJSON_Delete(m);
		return 0;
	}
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(m, "id")) &&
	    strcmp(v->valuestring, id) != 0) {
		xasprintf(&a->error, "%s: id \"%.100s\" does not match its "
		    "folder name \"%s\"", path, v->valuestring, id);
		cJSON_Delete(m);
		return 0;
	}
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(m, "name")))
		a->name = xstrdup(v->valuestring);
	if (app_runtime(a, cJSON_GetObjectItemCaseSensitive(m, "runtime")) ==
	    0 && (v = cJSON_GetObjectItemCaseSensitive(m, "sandbox")) != NULL)
		app_decl(a, v, env);
	cJSON_Delete(m);
	if (a->health_path == NULL)
		a->health_path = xstrdup("/health");
	return 0;

missing:
	app_free(a);
	return -1;
}

void
app_free(struct app *a)
{
	free(a->id);
	free(a->name);
	free(a->dir);
	free(a->error);
	free(a->kind);
	free(a->start);
	free(a->health_path);
	cJSON_Delete(a->env);
	policy_free(&a->decl);
	memset(a, 0, sizeof *a);
}

static int
app_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **
app_scan(const char *apps_dir, size_t *np)
{
	DIR		*d;
	struct dirent	*de;
	char		**ids = NULL;
	size_t		 n = 0;

	*np = 0;
	if ((d = opendir(apps_dir)) == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN &&
		    de->d_type != DT_LNK)
			continue;
		ids = xreallocarray(ids, n + 1, sizeof *ids);
		ids[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(ids, n, sizeof *ids, app_cmp);
	*np = n;
	return ids;
}
