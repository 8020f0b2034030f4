/*
 * One-off commands (spacebox exec): run in the client's project at the
 * engine's sandbox level, with output limits, background jobs, approvals
 * for servers and for running outside the sandbox, and the allowlist
 * proxy as an optional network broker.
 */
#ifndef SPACEBOX_EXEC_H
#define SPACEBOX_EXEC_H

#include "api.h"

#define EXEC_TIMEOUT_DEFAULT	120
#define EXEC_OUTPUT_MAX		(64 * 1024)

/*
 * Read --local-sandbox-read ("toolchain" or a comma list of paths) into
 * the engine.  Returns 0, or -1 with a message naming the refused path.
 */
int	exec_reads_parse(struct engine *, const char *spec, char *err,
	    size_t errlen);

/* --exec-hosts: the broker's site list.  0, or -1 with a message. */
int	exec_hosts_parse(struct engine *, const char *list, char *err,
	    size_t errlen);

/* Remove what jobs of an earlier engine left (engine start). */
void	exec_sweep(struct engine *);

/* Stop every job (engine shutdown). */
void	exec_shutdown(struct engine *);

/* Routes. */
void	api_exec_run(struct api_req *);
void	api_exec_list(struct api_req *);
void	api_exec_get(struct api_req *);
void	api_exec_approve(struct api_req *);
void	api_exec_deny(struct api_req *);
void	api_exec_stop(struct api_req *);

#endif
