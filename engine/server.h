/*
 * The management API's transport: a unix socket (never TCP) whose folder
 * is 0700, the socket 0600, a lock so two engines cannot share it, and a
 * peer uid check on every connection.
 */
#ifndef SPACEBOX_SERVER_H
#define SPACEBOX_SERVER_H

#include <sys/queue.h>

#include <cjson/cJSON.h>
#include <uv.h>

#include "engine.h"
#include "httpmsg.h"

#define SERVER_MAX_BODY		(1024 * 1024)

/*
 * One client connection.  Created on accept, freed in the close callback
 * of its pipe.  msg holds the request being read.
 */
struct server_conn {
	uv_pipe_t	 pipe;
	struct engine	*engine;
	struct httpmsg	 msg;
	int		 keep_alive;
	int		 closing;
	int		 refused;	/* another uid: answer 403 only */
	int		 streaming;	/* subscribed to GET /api/events */
	TAILQ_ENTRY(server_conn) entry;
};

/* Bind and listen.  Returns 0, or -1 with a one-line message in err. */
int	server_start(struct engine *, char *err, size_t errlen);
/* Close the listener, remove the socket and release the lock. */
void	server_stop(struct engine *);

/* Answer the current request; takes ownership of body (may be NULL). */
void	server_reply(struct server_conn *, int status, cJSON *body);
void	server_reply_error(struct server_conn *, int status, const char *fmt,
	    ...) __attribute__((format(printf, 3, 4)));

/*
 * Turn the current request into an event stream: answer 200 with a body
 * of JSON lines that lasts until the client goes away.
 */
void	server_stream_start(struct server_conn *);
/* Send one event (a JSON object, not taken) to every stream. */
void	server_broadcast(const cJSON *event);

#endif
