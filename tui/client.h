/*
 * The client side of the management API: find or start the engine, send
 * one request over the unix socket, read the answer with http-parser.
 */
#ifndef SPACEBOX_CLIENT_H
#define SPACEBOX_CLIENT_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* Set up by main() from the global options; strings are borrowed. */
struct client {
	const char	*socket;
	const char	*workspace;	/* passed to an engine we start */
	int		 no_start;
	int		 json;
};

/* One answer.  client_resp_free releases body and json. */
struct client_resp {
	int	 status;
	char	*body;
	size_t	 bodylen;
	cJSON	*json;		/* parsed body, or NULL */
};

/*
 * Send one request.  Returns 0 with resp filled (any status), or -1 with
 * a one-line message in err when the engine could not be reached.
 */
int	client_request(struct client *, const char *method, const char *path,
	    const char *body, struct client_resp *resp, char *err,
	    size_t errlen);
void	client_resp_free(struct client_resp *);

/*
 * GET a streaming route and copy its body to standard output until the
 * engine closes it.  Returns 0, or -1 after printing why.
 */
int	client_stream(struct client *, const char *path);

/* Send GET path and return the socket to read the answer from, or -1. */
int	client_stream_open(struct client *, const char *path, char *err,
	    size_t errlen);

/* The "error" string of a failed answer, or a generic one. */
const char *client_error(const struct client_resp *);

#endif
