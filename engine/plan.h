/*
 * The launch plan: app + policy + environment -> the bwrap argv, the
 * app's environment, what is granted, and the one-line summary for the
 * runtime log.  Building a plan starts nothing; it only looks at the
 * filesystem (realpath, stat), so it can be printed (spacebox plan),
 * diffed and unit-tested.
 */
#ifndef SPACEBOX_PLAN_H
#define SPACEBOX_PLAN_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "guard.h"
#include "policy.h"

#define PLAN_MAX_RUNTIME	16
#define PLAN_INBOUND_FD		3
#define PLAN_INFO_FD		4
#define PLAN_SECCOMP_FD		5

/* Everything a plan depends on; all borrowed. */
struct plan_input {
	const char		*app_id;
	const char		*app_dir;	/* canonical install dir */
	const char		*start;		/* runtime.start */
	const cJSON		*app_env;	/* runtime.env or NULL */
	const struct policy	*policy;
	struct guard_env	 genv;		/* home, state root */
	const char		*sandbox_dir;	/* <root>/sandbox */
	const char		*path_env;	/* PATH given to the app */
	const char		*user;		/* USER */
	const char		*lang;		/* LANG or NULL */
	const char		*bwrap;		/* /usr/bin/bwrap */
	const char		*shim;		/* spacebox-shim, absolute */
	const char		*net_dir;	/* per-app socket folder */
	const char		*socket_dir;	/* management socket's folder */
	const char		*token;		/* app-facing API token */
	int			 port;		/* the app's PORT */
	int			 api_port;	/* app-facing API */
	int			 proxy_port;	/* hosts mode */
	int			 as_root;	/* engine runs as uid 0 */
	int			 seccomp;	/* filter comes as PLAN_SECCOMP_FD */
	int			 unconfined;	/* no sandbox: operator said so */

	/*
	 * A one-off command (spacebox exec) instead of an app: argv runs
	 * as is in the project, which is the only folder it may write
	 * (project_rw) besides tmp_dir; reads are extra read-only folders
	 * (the toolchain).  app_dir, start and the app's own dirs are not
	 * used.  policy gives the network (off, or hosts for the broker).
	 */
	int			 command;
	char *const		*argv;
	const char		*project;
	const char		*cwd;		/* inside the project */
	int			 project_rw;
	const char		*tmp_dir;
	char *const		*reads;
	size_t			 nreads;
	int			 runtime_reads;	/* toolchain: PATH runtimes */
	const char		*level;		/* for the log line */
};

struct plan_grant {
	char		*path;
	int		 rw;
	const char	*why;		/* "install dir", "granted", ... */
};

/* Filled by plan_build, released by plan_free; everything owned. */
struct plan {
	char			**argv;
	size_t			  argc;
	char			**env;
	size_t			  nenv;
	struct plan_grant	 *grants;
	size_t			  ngrants;
	char			**warnings;
	size_t			  nwarnings;
	char			**remounts;	/* made read-only last */
	size_t			  nremounts;
	const char		 *isolation;	/* bubblewrap, none, unconfined */
	int			  netns;	/* own network namespace */
	char			 *log_line;
};

/* Returns 0, or -1 with a one-line reason (nothing to launch). */
int	 plan_build(const struct plan_input *, struct plan *, char *err,
	    size_t errlen);
void	 plan_free(struct plan *);
cJSON	*plan_json(const struct plan *);

/* The folders a sandboxed app may always write, in a fixed order. */
size_t	 plan_own_dirs(const char *root, const char *sandbox_dir,
	    const char *app_dir, const char *id, char **out, size_t max);

#endif
