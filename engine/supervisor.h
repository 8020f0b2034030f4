/*
 * The supervisor: launches apps from their plan, waits for their health
 * path, stops them (TERM, grace, KILL), restarts crashed background apps
 * with backoff, stops idle session apps, and keeps their logs.
 */
#ifndef SPACEBOX_SUPERVISOR_H
#define SPACEBOX_SUPERVISOR_H

#include <cjson/cJSON.h>

#include "engine.h"

#define SV_HEALTH_POLL_MS	250
#define SV_HEALTH_BUDGET_MS	30000
#define SV_STOP_GRACE_MS	5000
#define SV_BACKOFF_MAX		60
#define SV_CRASH_LIMIT		5
#define SV_CRASH_WINDOW_MS	120000
#define SV_LOG_MAX		(1024 * 1024)
#define SV_LOG_KEEP		5

enum sv_state {
	SV_STOPPED,
	SV_STARTING,
	SV_RUNNING,
	SV_BACKOFF,
	SV_STOPPING,
	SV_FAILED
};

/*
 * Start the app now (from a request: also clears a failed state).
 * Returns 0, or an HTTP status with err: 404 no app, 409 cannot run as
 * configured (broken manifest, unusable policy), 503 no sandbox here.
 */
int	supervisor_start(struct engine *, const char *id, char *err,
	    size_t errlen);
int	supervisor_stop(struct engine *, const char *id, char *err,
	    size_t errlen);
int	supervisor_restart(struct engine *, const char *id, char *err,
	    size_t errlen);

/* Start every background app (at engine start). */
void	supervisor_start_background(struct engine *);

/* Stop every app, then call done (at engine shutdown). */
void	supervisor_shutdown(struct engine *, void (*done)(struct engine *));

/*
 * SenClaw's runtime answer: {"appId", "running", "process": {"pid",
 * "port", "uptimeMs", "isolation"}, "state", ...}.
 */
cJSON	*supervisor_runtime_json(struct engine *, struct engine_app *);

/* State word for lists: stopped, starting, running, backoff, ... */
const char *supervisor_state(struct engine *, const char *id);

/* 1 when the running process was launched with a policy that differs
 * from saved in something other than the site list. */
int	supervisor_restart_needed(struct engine *, const char *id,
	    const struct policy *saved);

/* The app a token belongs to, or NULL. */
const char *supervisor_token_app(struct engine *, const char *token);

/*
 * The plan the app would be launched with now (port 0 and proxy port 0
 * when they are chosen at start).  Returns 0 or -1 with err.
 */
struct plan;
int	supervisor_plan(struct engine *, struct engine_app *, struct plan *,
	    char *err, size_t errlen);

/* Path of the app's engine-owned log. */
char	*supervisor_log_path(struct engine *, const char *id);

#endif
