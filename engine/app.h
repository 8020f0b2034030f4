/*
 * Space Apps: discovery in <workspace>/space-apps/<id>/ and the manifest
 * (senclaw-manifest.json), including its sandbox declaration.
 */
#ifndef SPACEBOX_APP_H
#define SPACEBOX_APP_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "policy.h"

#define APP_ID_MAX		80
#define APP_MANIFEST		"senclaw-manifest.json"
#define APP_IDLE_DEFAULT	60
#define APP_IDLE_MIN		15

/*
 * A snapshot of one app's manifest.  Filled by app_read, released by
 * app_free; every pointer is owned.  error is set when the app cannot be
 * run (broken manifest, invalid declaration): the rest may be partial.
 */
struct app {
	char		*id;
	char		*name;
	char		*dir;		/* install dir, canonical */
	char		*error;

	char		*kind;		/* runtime.kind */
	char		*start;		/* runtime.start */
	char		*health_path;	/* runtime.healthPath */
	int		 port;		/* runtime.port, 0 = engine picks */
	int		 background;	/* runtime.mode == "background" */
	int		 idle_secs;	/* runtime.idleTimeoutSecs */
	cJSON		*env;		/* runtime.env object or NULL */

	int		 has_decl;	/* manifest has a sandbox block */
	struct policy	 decl;		/* the declaration as a policy */
};

/*
 * Check an app id: 1-80 of [A-Za-z0-9_-], not one of the engine's own
 * folder names.  Returns 0 or -1 with a one-line reason.
 */
int	app_id_check(const char *id, char *err, size_t errlen);

/*
 * Read <apps_dir>/<id>/senclaw-manifest.json.  Returns -1 only when the
 * folder does not exist (no such app); a broken manifest returns 0 with
 * a->error set.
 */
int	app_read(const char *apps_dir, const char *id,
	    const struct guard_env *, struct app *a);
void	app_free(struct app *a);

/* The ids under apps_dir, sorted; the caller frees each and the array. */
char	**app_scan(const char *apps_dir, size_t *n);

#endif
