/*
 * Management API routes: one table, one handler per route, so the help,
 * the man page and the tests can be checked against a single list.
 */
#ifndef SPACEBOX_API_H
#define SPACEBOX_API_H

#include "server.h"

#define API_MAX_PARAMS	2

/* One request as a route handler sees it; everything is borrowed. */
struct api_req {
	struct server_conn	*conn;
	struct engine		*engine;
	const char		*method;
	const char		*params[API_MAX_PARAMS];	/* :id ... */
	const char		*body;
	size_t			 bodylen;
	const struct httpmsg	*msg;		/* headers */
	const char		*query;		/* after '?', or NULL */
	const char		*via_app;	/* per-app socket's app */
};

struct api_route {
	const char	*method;
	const char	*pattern;	/* "/api/space/apps/:id/sandbox" */
	void		(*handler)(struct api_req *);
};

/* The management API's routes. */
extern const struct api_route	api_routes[];
extern const size_t		api_nroutes;

void	api_dispatch(struct server_conn *, const struct api_route *,
	    size_t);

/* Parse the body as JSON; answers 400 and returns NULL when it is not. */
cJSON	*api_body_json(struct api_req *);

/* Load the :id app or answer 404; returns 0 when loaded. */
int	 api_app(struct api_req *, struct engine_app *);

/* The app-facing API's routes (appapi.c). */
extern const struct api_route	appapi_routes[];
extern const size_t		appapi_nroutes;

/* Routes, one file per group. */
void	api_apps_list(struct api_req *);
void	api_apps_overview(struct api_req *);
void	api_sandbox_get(struct api_req *);
void	api_sandbox_put(struct api_req *);
void	api_sandbox_add_host(struct api_req *);
void	api_proxy_start(struct api_req *);
void	api_proxy_stop(struct api_req *);
void	api_events(struct api_req *);
void	api_app_start(struct api_req *);
void	api_app_stop(struct api_req *);
void	api_app_restart(struct api_req *);
void	api_app_runtime(struct api_req *);
void	api_app_logs(struct api_req *);
void	api_app_plan(struct api_req *);

#endif
