/*
 * The engine's state: paths, what this machine can enforce, and the
 * operations the API routes call.  One per spaceboxd process.
 */
#ifndef SPACEBOX_ENGINE_H
#define SPACEBOX_ENGINE_H

#include <sys/queue.h>

#include <uv.h>

#include "app.h"
#include "guard.h"
#include "paths.h"
#include "policy.h"
#include "proxy.h"

#define ENGINE_API_PORT_DEFAULT	18788

/* A running allowlist proxy, by app id.  Owned by the engine. */
struct engine_proxy {
	char			*app_id;
	struct proxy		*proxy;
	LIST_ENTRY(engine_proxy) entry;
};

/* Owned by main(); lives as long as the process. */
struct engine {
	uv_loop_t		*loop;
	struct sb_paths		 paths;
	char			*socket_dir;	/* canonical, masked in sandboxes */
	struct guard_env	 genv;	/* borrows from paths */
	int			 api_port;
	int			 unsandboxed_apps;
	int			 unsandboxed_commands;
	char			*local_sandbox;	/* exec level */
	char			*local_sandbox_read;
	int			 exec_timeout;	/* foreground limit, s */
	int			 exec_broker;	/* network through a proxy */
	struct policy		 exec_policy;	/* the broker's site list */
	char			**exec_reads;	/* read-only for commands */
	size_t			 nexec_reads;
	int			 exec_runtime_reads; /* toolchain: PATH */

	struct proxy_limits	 proxy_limits;
	LIST_HEAD(, engine_proxy) proxies;

	const char		*bwrap;		/* $SPACEBOX_BWRAP or /usr/bin/bwrap */
	int			 bwrap_ok;	/* bubblewrap usable here */
	char			*bwrap_note;	/* why not, and the fix */
};

/*
 * An app as the API sees it: manifest snapshot plus its stored policy.
 * Filled by engine_app_get, released by engine_app_put.
 */
struct engine_app {
	struct app	 app;
	struct policy	 policy;
	char		*policy_error;	/* corrupt or refused policy file */
};

void	engine_init(struct engine *, uv_loop_t *);
void	engine_probe(struct engine *);

/*
 * Load one app.  Returns 0, or -1 when there is no such app.  A first
 * sight of an app with a sandbox declaration stores the declaration as its
 * policy; a forced app always has enabled and forced set.
 */
int	engine_app_get(struct engine *, const char *id, struct engine_app *);
void	engine_app_put(struct engine_app *);

/*
 * Validate and store a new policy for an app.  Returns 0, or an HTTP
 * status (400, 409, 500) with a one-line message in err.
 */
int	engine_policy_save(struct engine *, struct engine_app *,
	    struct policy *newp, char *err, size_t errlen);

/* The app's running proxy, or NULL. */
struct proxy *engine_proxy_find(struct engine *, const char *id);

/*
 * Start the app's proxy (or find the running one).  Returns 0, or an
 * HTTP status with err (409: not in "only these sites" mode).
 */
int	engine_proxy_start(struct engine *, struct engine_app *,
	    struct proxy **, char *err, size_t errlen);
/* Stop the app's proxy, closing every tunnel; 0, or -1 if none ran. */
int	engine_proxy_stop(struct engine *, const char *id);
void	engine_proxy_stop_all(struct engine *);

/* Tell every event stream; takes ownership of event. */
void	engine_publish(struct engine *, cJSON *event);

#define ENGINE_FORCED_MSG "This app requires the sandbox (its manifest " \
	"declares sandbox.force). You can change what it may reach, but not " \
	"turn the sandbox off."

#endif
