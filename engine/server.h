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

struct api_route;

/*
 * One listening socket and the routes it serves: the management socket
 * (peer uid checked), the app-facing API on 127.0.0.1, and one unix
 * socket per sandboxed app (which tells the engine who is calling).
 * Created by server_start / server_listen_*, closed by server_close.
 */
struct server_listener {
	union {
		uv_pipe_t	 pipe;
		uv_tcp_t	 tcp;
	} h;
	int				 is_pipe;
	int				 check_peer;
	const struct api_route		*routes;
	size_t				 nroutes;
	char				*app_id;	/* per-app socket */
	char				*path;		/* unlinked on close */
	struct engine			*engine;
	LIST_ENTRY(server_listener)	 entry;
};

/*
 * One client connection.  Created on accept, freed in the close callback
 * of its stream.  msg holds the request being read.
 */
struct server_conn {
	union {
		uv_pipe_t	 pipe;
		uv_tcp_t	 tcp;
	} h;
	struct server_listener *listener;
	struct engine	*engine;
	struct httpmsg	 msg;
	int		 keep_alive;
	int		 closing;
	int		 refused;	/* another uid: answer 403 only */
	int		 streaming;	/* subscribed to GET /api/events */
	char		*follow;	/* following this app's log */
	/* A request answered later: told when the client goes away. */
	void		(*on_close)(struct server_conn *, void *);
	void		*on_close_arg;
	TAILQ_ENTRY(server_conn) entry;
};

/*
 * Bind and listen on the management socket.  Returns 0, or -1 with a
 * one-line message in err.
 */
int	server_start(struct engine *, char *err, size_t errlen);
/* Close every listener and connection, remove the socket, unlock. */
void	server_stop(struct engine *);

/* Serve routes on 127.0.0.1:port, or on a unix socket for one app. */
struct server_listener *server_listen_tcp(struct engine *, int port,
	    const struct api_route *, size_t, char *err, size_t errlen);
struct server_listener *server_listen_unix(struct engine *, const char *path,
	    const char *app_id, const struct api_route *, size_t, char *err,
	    size_t errlen);
void	server_close(struct server_listener *);

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

/*
 * Turn the current request into a plain-text stream of an app's log
 * (text already sent as the first part of the body), and feed it.
 */
void	server_follow_start(struct server_conn *, const char *app_id,
	    const char *text, size_t len);
void	server_follow(const char *app_id, const char *data, size_t len);

#endif
