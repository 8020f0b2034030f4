/*
 * The per-app sandbox policy: parse, validate, print.
 *
 * Validation rejects and never repairs, except for the normalisations the
 * format defines (host spelling, canonical folder paths, sorted loopback
 * ports, "allowlist" read as "strict").  Every message names the field
 * and the value so a person can fix the input.
 */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "policy.h"
#include "xmalloc.h"

static const char *const policy_known_keys[] = {
	"enabled", "readMode", "folders", "network", "hosts", "daemonApi",
	"loopback", "forced", "allowPrivate", NULL
};

const char *
policy_read_name(enum policy_read r)
{
	return r == POLICY_READ_STRICT ? "strict" : "open";
}

const char *
policy_net_name(enum policy_net n)
{
	switch (n) {
	case POLICY_NET_OFF:
		return "off";
	case POLICY_NET_HOSTS:
		return "hosts";
	default:
		return "all";
	}
}

void
policy_init(struct policy *p)
{
	memset(p, 0, sizeof *p);
	p->read_mode = POLICY_READ_OPEN;
	p->network = POLICY_NET_ALL;
	p->daemon_api = 1;
}

void
policy_free(struct policy *p)
{
	size_t	i;

	for (i = 0; i < p->nfolders; i++)
		free(p->folders[i].path);
	for (i = 0; i < p->nhosts; i++)
		free(p->hosts[i]);
	cJSON_Delete(p->extra);
	policy_init(p);
}

void
policy_copy(struct policy *dst, const struct policy *src)
{
	size_t	i;

	*dst = *src;
	for (i = 0; i < src->nfolders; i++)
		dst->folders[i].path = xstrdup(src->folders[i].path);
	for (i = 0; i < src->nhosts; i++)
		dst->hosts[i] = xstrdup(src->hosts[i]);
	dst->extra = src->extra != NULL ?
	    cJSON_Duplicate(src->extra, 1) : NULL;
}

static int
policy_error(char *err, size_t errlen, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* A short printable rendering of a JSON value for error messages. */
static void
policy_show(const cJSON *v, char *buf, size_t len)
{
	char	*s;

	if ((s = cJSON_PrintUnformatted(v)) == NULL) {
		snprintf(buf, len, "?");
		return;
	}
	if (strlen(s) > 60)
		snprintf(buf, len, "%.57s...", s);
	else
		snprintf(buf, len, "%s", s);
	cJSON_free(s);
}

/* A string as JSON would print it: quoted, escaped, never two lines. */
static void
policy_quote(const char *str, char *buf, size_t len)
{
	cJSON	*v = cJSON_CreateString(str);

	policy_show(v, buf, len);
	cJSON_Delete(v);
}

static int
policy_bool(const cJSON *v, const char *key, int *out, char *err,
    size_t errlen)
{
	char	shown[80];

	if (!cJSON_IsBool(v)) {
		policy_show(v, shown, sizeof shown);
		return policy_error(err, errlen, "%s %s: must be true or "
		    "false", key, shown);
	}
	*out = cJSON_IsTrue(v);
	return 0;
}

static int
policy_known(const char *key)
{
	size_t	i;

	for (i = 0; policy_known_keys[i] != NULL; i++) {
		if (strcmp(key, policy_known_keys[i]) == 0)
			return 1;
	}
	return 0;
}

static int
policy_folders(struct policy *p, const cJSON *v, const struct guard_env *env,
    char *err, size_t errlen)
{
	const cJSON	*item, *path, *ro;
	char		 canon[PATH_MAX], why[PATH_MAX + 128], shown[80];
	size_t		 i, j;
	int		 read_only;

	if (!cJSON_IsArray(v)) {
		policy_show(v, shown, sizeof shown);
		return policy_error(err, errlen, "folders %s: must be a list "
		    "of {\"path\", \"readOnly\"} objects", shown);
	}
	if (cJSON_GetArraySize(v) > POLICY_MAX_FOLDERS)
		return policy_error(err, errlen, "folders: %d entries; at "
		    "most %d folders may be granted", cJSON_GetArraySize(v),
		    POLICY_MAX_FOLDERS);
	i = 0;
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsObject(item)) {
			policy_show(item, shown, sizeof shown);
			return policy_error(err, errlen, "folders[%zu] %s: "
			    "must be an object {\"path\", \"readOnly\"}", i,
			    shown);
		}
		path = cJSON_GetObjectItemCaseSensitive(item, "path");
		if (!cJSON_IsString(path) || path->valuestring[0] == '\0') {
			if (path == NULL)
				snprintf(shown, sizeof shown, "missing");
			else
				policy_show(path, shown, sizeof shown);
			return policy_error(err, errlen, "folders[%zu].path "
			    "%s: must be a non-empty string", i, shown);
		}
		read_only = 0;
		ro = cJSON_GetObjectItemCaseSensitive(item, "readOnly");
		if (ro != NULL && !cJSON_IsBool(ro)) {
			policy_show(ro, shown, sizeof shown);
			return policy_error(err, errlen, "folders[%zu]."
			    "readOnly %s: must be true or false", i, shown);
		}
		if (ro != NULL)
			read_only = cJSON_IsTrue(ro);
		if (env == NULL)
			snprintf(canon, sizeof canon, "%s", path->valuestring);
		else if (guard_folder(env, path->valuestring, canon, why,
		    sizeof why) == -1) {
			policy_show(path, shown, sizeof shown);
			return policy_error(err, errlen, "folders[%zu].path "
			    "%s: %s", i, shown, why);
		}
		for (j = 0; j < p->nfolders; j++) {
			if (strcmp(p->folders[j].path, canon) == 0) {
				policy_show(path, shown, sizeof shown);
				return policy_error(err, errlen, "folders[%zu]"
				    ".path %s: already granted as "
				    "folders[%zu]", i, shown, j);
			}
		}
		p->folders[p->nfolders].path = xstrdup(canon);
		p->folders[p->nfolders].read_only = read_only;
		p->nfolders++;
		i++;
	}
	return 0;
}

int
policy_add_host(struct policy *p, const char *host, char *err, size_t errlen)
{
	char		 norm[HOST_BUF_LEN], shown[80];
	const char	*why;
	size_t		 i;

	policy_quote(host, shown, sizeof shown);
	if (host_site_normalize(host, norm, sizeof norm, &why) == -1)
		return policy_error(err, errlen, "host %s: %s", shown, why);
	for (i = 0; i < p->nhosts; i++) {
		if (strcmp(p->hosts[i], norm) == 0)
			return 0;
	}
	if (p->nhosts == POLICY_MAX_HOSTS)
		return policy_error(err, errlen, "host %s: the site list "
		    "already has %d entries, the most it may hold", shown,
		    POLICY_MAX_HOSTS);
	p->hosts[p->nhosts++] = xstrdup(norm);
	return 0;
}

static int
policy_hosts(struct policy *p, const cJSON *v, char *err, size_t errlen)
{
	const cJSON	*item;
	char		 shown[80], norm[HOST_BUF_LEN];
	const char	*why;
	size_t		 i, j;
	int		 dup;

	if (!cJSON_IsArray(v)) {
		policy_show(v, shown, sizeof shown);
		return policy_error(err, errlen, "hosts %s: must be a list of "
		    "site names", shown);
	}
	i = 0;
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsString(item)) {
			policy_show(item, shown, sizeof shown);
			return policy_error(err, errlen, "hosts[%zu] %s: must "
			    "be a string", i, shown);
		}
		if (host_site_normalize(item->valuestring, norm, sizeof norm,
		    &why) == -1) {
			policy_show(item, shown, sizeof shown);
			return policy_error(err, errlen, "hosts[%zu] %s: %s",
			    i, shown, why);
		}
		dup = 0;
		for (j = 0; j < p->nhosts; j++)
			dup |= strcmp(p->hosts[j], norm) == 0;
		if (!dup) {
			if (p->nhosts == POLICY_MAX_HOSTS)
				return policy_error(err, errlen, "hosts: more "
				    "than %d distinct sites",
				    POLICY_MAX_HOSTS);
			p->hosts[p->nhosts++] = xstrdup(norm);
		}
		i++;
	}
	return 0;
}

static int
policy_port_cmp(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

static int
policy_loopback(struct policy *p, const cJSON *v, char *err, size_t errlen)
{
	const cJSON	*item;
	char		 shown[80];
	size_t		 i, j;
	double		 d;
	int		 port, dup;

	if (!cJSON_IsArray(v)) {
		policy_show(v, shown, sizeof shown);
		return policy_error(err, errlen, "loopback %s: must be a list "
		    "of port numbers", shown);
	}
	i = 0;
	cJSON_ArrayForEach(item, v) {
		d = cJSON_IsNumber(item) ? item->valuedouble : -1;
		if (!cJSON_IsNumber(item) || d != floor(d) || d < 1 ||
		    d > 65535) {
			policy_show(item, shown, sizeof shown);
			return policy_error(err, errlen, "loopback[%zu] %s: "
			    "must be a port number from 1 to 65535", i, shown);
		}
		port = (int)d;
		dup = 0;
		for (j = 0; j < p->nloopback; j++)
			dup |= p->loopback[j] == port;
		if (!dup) {
			if (p->nloopback == POLICY_MAX_LOOPBACK)
				return policy_error(err, errlen, "loopback: "
				    "more than %d distinct ports",
				    POLICY_MAX_LOOPBACK);
			p->loopback[p->nloopback++] = port;
		}
		i++;
	}
	qsort(p->loopback, p->nloopback, sizeof p->loopback[0],
	    policy_port_cmp);
	return 0;
}

static int
policy_fields(struct policy *p, const cJSON *json, const struct guard_env *env,
    int flags, char *err, size_t errlen)
{
	const cJSON	*v, *w;
	char		 shown[80];

	if ((v = cJSON_GetObjectItemCaseSensitive(json, "enabled")) != NULL &&
	    policy_bool(v, "enabled", &p->enabled, err, errlen) == -1)
		return -1;
	if ((v = cJSON_GetObjectItemCaseSensitive(json, "readMode")) != NULL) {
		if (cJSON_IsString(v) && strcmp(v->valuestring, "open") == 0)
			p->read_mode = POLICY_READ_OPEN;
		else if (cJSON_IsString(v) &&
		    (strcmp(v->valuestring, "strict") == 0 ||
		    strcmp(v->valuestring, "allowlist") == 0))
			p->read_mode = POLICY_READ_STRICT;
		else {
			policy_show(v, shown, sizeof shown);
			return policy_error(err, errlen, "readMode %s: must be "
			    "\"open\" or \"strict\"", shown);
		}
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(json, "folders")) != NULL &&
	    policy_folders(p, v, env, err, errlen) == -1)
		return -1;
	if ((v = cJSON_GetObjectItemCaseSensitive(json, "network")) != NULL) {
		if (cJSON_IsString(v) && strcmp(v->valuestring, "all") == 0)
			p->network = POLICY_NET_ALL;
		else if (cJSON_IsString(v) &&
		    strcmp(v->valuestring, "off") == 0)
			p->network = POLICY_NET_OFF;
		else if (cJSON_IsString(v) &&
		    strcmp(v->valuestring, "hosts") == 0)
			p->network = POLICY_NET_HOSTS;
		else {
			policy_show(v, shown, sizeof shown);
			return policy_error(err, errlen, "network %s: must be "
			    "\"all\", \"off\" or \"hosts\"", shown);
		}
	}
	if ((v = cJSON_GetObjectItemCaseSensitive(json, "hosts")) != NULL &&
	    policy_hosts(p, v, err, errlen) == -1)
		return -1;
	if ((v = cJSON_GetObjectItemCaseSensitive(json, "daemonApi")) != NULL &&
	    policy_bool(v, "daemonApi", &p->daemon_api, err, errlen) == -1)
		return -1;
	if ((v = cJSON_GetObjectItemCaseSensitive(json, "loopback")) != NULL &&
	    policy_loopback(p, v, err, errlen) == -1)
		return -1;
	if ((v = cJSON_GetObjectItemCaseSensitive(json, "allowPrivate")) !=
	    NULL && policy_bool(v, "allowPrivate", &p->allow_private, err,
	    errlen) == -1)
		return -1;
	/* Only the manifest may force the sandbox; a request never can. */
	w = cJSON_GetObjectItemCaseSensitive(json, "forced");
	if (w != NULL && !(flags & POLICY_FROM_REQUEST) &&
	    policy_bool(w, "forced", &p->forced, err, errlen) == -1)
		return -1;
	return 0;
}

/*
 * Refuse what would not survive a round trip unchanged: a key given twice
 * in any object, and numbers JSON cannot print (infinities).
 */
static int
policy_clean(const cJSON *j, const char *where, char *err, size_t errlen)
{
	const cJSON	*v, *w;
	char		 shown[80], sub[256];
	size_t		 i = 0;

	if (cJSON_IsNumber(j) && !isfinite(j->valuedouble))
		return policy_error(err, errlen, "%s: number out of range",
		    where);
	if (!cJSON_IsObject(j) && !cJSON_IsArray(j))
		return 0;
	cJSON_ArrayForEach(v, j) {
		if (cJSON_IsObject(j)) {
			if (v->string == NULL)
				return policy_error(err, errlen, "%s: key "
				    "without a name", where);
			policy_quote(v->string, shown, sizeof shown);
			for (w = v->next; w != NULL; w = w->next) {
				if (strcmp(v->string, w->string) == 0)
					return policy_error(err, errlen,
					    "%s: key %s given twice",
					    where[0] != '\0' ? where : "policy",
					    shown);
			}
			/* Top-level keys name the field as the rules do. */
			if (where[0] == '\0')
				snprintf(sub, sizeof sub, "%s",
				    strspn(v->string, "abcdefghijklmnopqrstuvw"
				    "xyzABCDEFGHIJKLMNOPQRSTUVWXYZ") ==
				    strlen(v->string) ? v->string : shown);
			else
				snprintf(sub, sizeof sub, "%s.%s", where,
				    shown);
		} else
			snprintf(sub, sizeof sub, "%s[%zu]", where, i);
		if (policy_clean(v, sub, err, errlen) == -1)
			return -1;
		i++;
	}
	return 0;
}

int
policy_from_json(struct policy *p, const cJSON *json,
    const struct guard_env *env, int flags, char *err, size_t errlen)
{
	const cJSON	*v;
	char		 shown[80];

	policy_init(p);
	if (!cJSON_IsObject(json)) {
		policy_show(json, shown, sizeof shown);
		return policy_error(err, errlen, "policy %s: must be a JSON "
		    "object", shown);
	}
	if (policy_clean(json, "", err, errlen) == -1)
		return -1;
	if (policy_fields(p, json, env, flags, err, errlen) == -1) {
		policy_free(p);
		return -1;
	}
	cJSON_ArrayForEach(v, json) {
		if (policy_known(v->string))
			continue;
		if (p->extra == NULL)
			p->extra = cJSON_CreateObject();
		cJSON_AddItemToObject(p->extra, v->string,
		    cJSON_Duplicate(v, 1));
	}
	return 0;
}

int
policy_parse(struct policy *p, const char *text, size_t len,
    const struct guard_env *env, int flags, char *err, size_t errlen)
{
	cJSON		*json;
	const char	*end = NULL;
	int		 rv;

	policy_init(p);
	json = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	/* Anything but white space after the value is a torn file. */
	if (json != NULL) {
		while (end < text + len && (*end == ' ' || *end == '\t' ||
		    *end == '\n' || *end == '\r'))
			end++;
		if (end != text + len) {
			cJSON_Delete(json);
			json = NULL;
		}
	}
	if (json == NULL) {
		size_t off = end != NULL && end >= text ?
		    (size_t)(end - text) : 0;

		return policy_error(err, errlen, "not valid JSON (error near "
		    "byte %zu)", off);
	}
	rv = policy_from_json(p, json, env, flags, err, errlen);
	cJSON_Delete(json);
	return rv;
}

cJSON *
policy_to_json(const struct policy *p)
{
	cJSON		*o, *a, *f;
	const cJSON	*v;
	size_t		 i;

	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "enabled", p->enabled);
	cJSON_AddStringToObject(o, "readMode", policy_read_name(p->read_mode));
	a = cJSON_AddArrayToObject(o, "folders");
	for (i = 0; i < p->nfolders; i++) {
		f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "path", p->folders[i].path);
		cJSON_AddBoolToObject(f, "readOnly", p->folders[i].read_only);
		cJSON_AddItemToArray(a, f);
	}
	cJSON_AddStringToObject(o, "network", policy_net_name(p->network));
	a = cJSON_AddArrayToObject(o, "hosts");
	for (i = 0; i < p->nhosts; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->hosts[i]));
	cJSON_AddBoolToObject(o, "daemonApi", p->daemon_api);
	a = cJSON_AddArrayToObject(o, "loopback");
	for (i = 0; i < p->nloopback; i++)
		cJSON_AddItemToArray(a, cJSON_CreateNumber(p->loopback[i]));
	cJSON_AddBoolToObject(o, "forced", p->forced);
	cJSON_AddBoolToObject(o, "allowPrivate", p->allow_private);
	if (p->extra != NULL) {
		cJSON_ArrayForEach(v, p->extra)
			cJSON_AddItemToObject(o, v->string,
			    cJSON_Duplicate(v, 1));
	}
	return o;
}

char *
policy_to_string(const struct policy *p, int pretty)
{
	cJSON	*o = policy_to_json(p);
	char	*s, *out;

	s = pretty ? cJSON_Print(o) : cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (s == NULL)
		return NULL;
	out = xstrdup(s);
	cJSON_free(s);
	return out;
}

static int
policy_same_hosts(const struct policy *a, const struct policy *b)
{
	size_t	i;

	if (a->nhosts != b->nhosts)
		return 0;
	for (i = 0; i < a->nhosts; i++) {
		if (strcmp(a->hosts[i], b->hosts[i]) != 0)
			return 0;
	}
	return 1;
}

int
policy_needs_restart(const struct policy *a, const struct policy *b)
{
	size_t	i;

	/* The site list and allowPrivate reach a running proxy at once. */
	if (a->enabled != b->enabled || a->read_mode != b->read_mode ||
	    a->network != b->network || a->daemon_api != b->daemon_api ||
	    a->nfolders != b->nfolders || a->nloopback != b->nloopback)
		return 1;
	for (i = 0; i < a->nfolders; i++) {
		if (strcmp(a->folders[i].path, b->folders[i].path) != 0 ||
		    a->folders[i].read_only != b->folders[i].read_only)
			return 1;
	}
	for (i = 0; i < a->nloopback; i++) {
		if (a->loopback[i] != b->loopback[i])
			return 1;
	}
	return 0;
}

int
policy_equal(const struct policy *a, const struct policy *b)
{
	if (policy_needs_restart(a, b) || !policy_same_hosts(a, b) ||
	    a->forced != b->forced || a->allow_private != b->allow_private)
		return 0;
	if (a->extra == NULL || b->extra == NULL)
		return a->extra == b->extra;
	return cJSON_Compare(a->extra, b->extra, 1);
}
