/*
 * The client's commands: one table (cmd.c), one file per command group,
 * so usage, help and the man page check come from a single list.
 */
#ifndef SPACEBOX_CMD_H
#define SPACEBOX_CMD_H

#include "client.h"

#define CMD_OK		0
#define CMD_FAILED	1
#define CMD_USAGE	2

struct cmd_entry {
	const char	*name;
	const char	*usage;		/* arguments after the name */
	const char	*summary;
	int		(*exec)(struct client *, int argc, char **argv);
};

extern const struct cmd_entry cmd_table[];

const struct cmd_entry *cmd_find(const char *name);
void	cmd_usage_all(FILE *);
int	cmd_usage(const struct cmd_entry *);

/*
 * Send a request and check the answer: returns the parsed answer's JSON
 * (owned by resp) or NULL after printing the error; *rv then holds the
 * exit status to return.
 */
const cJSON *cmd_call(struct client *, const char *method, const char *path,
	    const char *body, struct client_resp *resp, int *rv);

/* 1 when id is a usable app id; else says why on stderr. */
int	cmd_id_ok(const char *id);

/* Print a JSON value on stdout, pretty. */
void	cmd_print_json(const cJSON *);

int	cmd_apps(struct client *, int, char **);
int	cmd_sandbox(struct client *, int, char **);
int	cmd_allow(struct client *, int, char **);
int	cmd_app(struct client *, int, char **);
int	cmd_plan(struct client *, int, char **);
int	cmd_logs(struct client *, int, char **);
int	cmd_keys(struct client *, int, char **);
int	cmd_exec(struct client *, int, char **);
int	cmd_jobs(struct client *, int, char **);
int	cmd_approve(struct client *, int, char **);

#endif
