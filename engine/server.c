/*
 * The management socket.  Like tmux's server socket: a private folder,
 * a private socket, and the peer's uid checked on every connection, so
 * only the user who runs the engine can steer it.
 */
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "log.h"
#include "server.h"
#include "xmalloc.h"

static int		 server_lock_fd = -1;
static char		*server_lock_path;
static struct server_listener *server_mgmt;
static LIST_HEAD(, server_listener) server_listeners =
    LIST_HEAD_INITIALIZER(server_listeners);
static TAILQ_HEAD(, server_conn) server_conns =
    TAILQ_HEAD_INITIALIZER(server_conns);

struct server_write {
	uv_write_t	 req;
	char		*buf;
};

static void
server_conn_closed(uv_handle_t *h)
{
	struct server_conn	*c = h->data;

	TAILQ_REMOVE(&server_conns, c, entry);
	if (c->on_close != NULL)
		c->on_close(c, c->on_close_arg);
	httpmsg_free(&c->msg);
	free(c->follow);
	free(c);
}

static void
server_conn_close(struct server_conn *c)
{
	if (c->closing)
		return;
	c->closing = 1;
	uv_close((uv_handle_t *)&c->h, server_conn_closed);
}

static void
server_write_done(uv_write_t *req, int status)
{
	struct server_write	*w = (struct server_write *)req;
	struct server_conn	*c = req->handle->data;

	free(w->buf);
	free(w);
	if (status < 0 || !c->keep_alive)
		server_conn_close(c);
}

static void
server_send(struct server_conn *c, char *buf, size_t len)
{
	struct server_write	*w;
	uv_buf_t		 b;

	if (c->closing) {
		free(buf);
		return;
	}
	w = xcalloc(1, sizeof *w);
	w->buf = buf;
	b = uv_buf_init(buf, (unsigned int)len);
	if (uv_write(&w->req, (uv_stream_t *)&c->h, &b, 1,
	    server_write_done) < 0) {
		free(buf);
		free(w);
		server_conn_close(c);
	}
}

void
server_reply(struct server_conn *c, int status, cJSON *body)
{
	char	*text, *out;
	int	 n;

	text = body != NULL ? cJSON_PrintUnformatted(body) : NULL;
	cJSON_Delete(body);
	n = xasprintf(&out, "HTTP/1.1 %d %s\r\n"
	    "Server: spaceboxd/" SPACEBOX_VERSION "\r\n"
	    "Content-Type: application/json\r\n"
	    "Content-Length: %zu\r\n"
	    "Connection: %s\r\n\r\n%s%s",
	    status, httpmsg_reason(status),
	    text != NULL ? strlen(text) + 1 : 0,
	    c->keep_alive ? "keep-alive" : "close",
	    text != NULL ? text : "", text != NULL ? "\n" : "");
	cJSON_free(text);
	server_send(c, out, (size_t)n);
}

void
server_reply_error(struct server_conn *c, int status, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;
	cJSON	*o;

	va_start(ap, fmt);
	xvasprintf(&msg, fmt, ap);
	va_end(ap);
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "error", msg);
	free(msg);
	server_reply(c, status, o);
}

void
server_stream_start(struct server_conn *c)
{
	char	*out;
	int	 n;

	c->streaming = 1;
	c->keep_alive = 1;	/* the write callback must not close it */
	n = xasprintf(&out, "HTTP/1.1 200 OK\r\n"
	    "Server: spaceboxd/" SPACEBOX_VERSION "\r\n"
	    "Content-Type: application/x-ndjson\r\n"
	    "Cache-Control: no-store\r\n"
	    "Connection: close\r\n\r\n");
	server_send(c, out, (size_t)n);
}

void
server_follow_start(struct server_conn *c, const char *app_id,
    const char *text, size_t len)
{
	char	*out;
	int	 n;

	c->streaming = 1;
	c->keep_alive = 1;
	c->follow = xstrdup(app_id);
	n = xasprintf(&out, "HTTP/1.1 200 OK\r\n"
	    "Server: spaceboxd/" SPACEBOX_VERSION "\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n"
	    "Cache-Control: no-store\r\n"
	    "Connection: close\r\n\r\n");
	server_send(c, out, (size_t)n);
	if (len > 0) {
		out = xmalloc(len);
		memcpy(out, text, len);
		server_send(c, out, len);
	}
}

void
server_follow(const char *app_id, const char *data, size_t len)
{
	struct server_conn	*c;
	char			*buf;

	if (len == 0)
		return;
	TAILQ_FOREACH(c, &server_conns, entry) {
		if (c->follow == NULL || c->closing ||
		    strcmp(c->follow, app_id) != 0)
			continue;
		buf = xmalloc(len);
		memcpy(buf, data, len);
		server_send(c, buf, len);
	}
}

void
server_broadcast(const cJSON *event)
{
	struct server_conn	*c;
	char			*text, *line;
	int			 n;

	if ((text = cJSON_PrintUnformatted(event)) == NULL)
		return;
	TAILQ_FOREACH(c, &server_conns, entry) {
		if (!c->streaming || c->follow != NULL || c->closing)
			continue;
		n = xasprintf(&line, "%s\n", text);
		server_send(c, line, (size_t)n);
	}
	cJSON_free(text);
}

static void
server_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	static char	slab[65536];

	/* One read at a time on one thread: a static slab is enough. */
	buf->base = slab;
	buf->len = sizeof slab;
}

static void
server_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct server_conn	*c = s->data;
	const char		*p = buf->base;
	size_t			 left;
	ssize_t			 n;

	if (nread < 0) {
		server_conn_close(c);
		return;
	}
	if (c->streaming)
		return;		/* nothing more is read from a subscriber */
	left = (size_t)nread;
	while (left > 0 && !c->closing) {
		if ((n = httpmsg_feed(&c->msg, p, left)) == -1) {
			c->keep_alive = 0;
			uv_read_stop(s);
			if (c->refused)
				server_reply_error(c, 403, "this engine "
				    "belongs to another user, or the caller is "
				    "inside a sandbox");
			else
				server_reply_error(c, c->msg.status, "%s",
				    c->msg.error);
			return;
		}
		p += n;
		left -= (size_t)n;
		if (!c->msg.complete)
			break;
		c->keep_alive = http_should_keep_alive(&c->msg.parser);
		if (c->refused) {
			c->keep_alive = 0;
			uv_read_stop(s);
			server_reply_error(c, 403, "this engine belongs to "
			    "another user, or the caller is inside a sandbox");
			return;
		}
		api_dispatch(c, c->listener->routes, c->listener->nroutes);
		httpmsg_reset(&c->msg);
		/* A stream answers nothing more on this connection. */
		if (c->streaming)
			break;
	}
}

/*
 * Only the engine's own user may talk to it.  The folder's 0700 mode
 * already keeps others out; this check still holds if someone loosens
 * the modes by hand.
 */
static int
server_same_ns(pid_t pid, const char *ns)
{
	char	path[64], mine[64], theirs[64];
	ssize_t	n, m;

	snprintf(path, sizeof path, "/proc/self/ns/%s", ns);
	if ((n = readlink(path, mine, sizeof mine - 1)) <= 0)
		return 0;
	snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)pid, ns);
	if ((m = readlink(path, theirs, sizeof theirs - 1)) <= 0)
		return 0;
	return n == m && memcmp(mine, theirs, (size_t)n) == 0;
}

static int
server_peer_ok(uv_pipe_t *p)
{
	struct ucred	cred;
	socklen_t	len = sizeof cred;
	uv_os_fd_t	fd;

	if (uv_fileno((uv_handle_t *)p, &fd) != 0)
		return 0;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1)
		return 0;
	if (cred.uid != geteuid())
		return 0;
	/*
	 * A sandboxed app runs as the same user, so the uid alone does not
	 * tell it from the person: a peer in another PID namespace is
	 * inside a sandbox and never steers the engine.  (A peer whose pid
	 * we cannot see is in a namespace of its own too: pid 0.)
	 */
	return cred.pid > 0 && server_same_ns(cred.pid, "pid");
}

static void
server_accept(uv_stream_t *ls, int status)
{
	struct server_listener	*l = ls->data;
	struct engine		*e = l->engine;
	struct server_conn	*c;

	if (status < 0) {
		log_warnx("accept: %s", uv_strerror(status));
		return;
	}
	c = xcalloc(1, sizeof *c);
	c->engine = e;
	c->listener = l;
	httpmsg_init(&c->msg, HTTP_REQUEST, 8192, 16384, SERVER_MAX_BODY);
	if (l->is_pipe)
		uv_pipe_init(e->loop, &c->h.pipe, 0);
	else
		uv_tcp_init(e->loop, &c->h.tcp);
	c->h.pipe.data = c;
	TAILQ_INSERT_TAIL(&server_conns, c, entry);
	if (uv_accept(ls, (uv_stream_t *)&c->h) != 0) {
		server_conn_close(c);
		return;
	}
	/*
	 * Another user's request is read (so closing does not reset the
	 * connection before the answer arrives) but never dispatched.
	 */
	if (l->check_peer && !server_peer_ok(&c->h.pipe)) {
		log_warnx("refused a connection from another user or from "
		    "inside a sandbox");
		c->refused = 1;
	}
	uv_read_start((uv_stream_t *)&c->h, server_alloc, server_read);
}

static struct server_listener *
server_listener_new(struct engine *e, int is_pipe,
    const struct api_route *routes, size_t nroutes)
{
	struct server_listener	*l;

	l = xcalloc(1, sizeof *l);
	l->engine = e;
	l->is_pipe = is_pipe;
	l->routes = routes;
	l->nroutes = nroutes;
	if (is_pipe)
		uv_pipe_init(e->loop, &l->h.pipe, 0);
	else
		uv_tcp_init(e->loop, &l->h.tcp);
	l->h.pipe.data = l;
	LIST_INSERT_HEAD(&server_listeners, l, entry);
	return l;
}

static void
server_listener_closed(uv_handle_t *h)
{
	struct server_listener	*l = h->data;

	free(l->app_id);
	free(l->path);
	free(l);
}

void
server_close(struct server_listener *l)
{
	struct server_conn	*c;

	if (l == NULL)
		return;
	LIST_REMOVE(l, entry);
	TAILQ_FOREACH(c, &server_conns, entry) {
		if (c->listener == l)
			server_conn_close(c);
	}
	if (l->path != NULL)
		unlink(l->path);
	uv_close((uv_handle_t *)&l->h, server_listener_closed);
}

struct server_listener *
server_listen_tcp(struct engine *e, int port, const struct api_route *routes,
    size_t nroutes, char *err, size_t errlen)
{
	struct server_listener	*l;
	struct sockaddr_in	 sin;
	int			 rv;

	l = server_listener_new(e, 0, routes, nroutes);
	uv_ip4_addr("127.0.0.1", port, &sin);
	if ((rv = uv_tcp_bind(&l->h.tcp, (struct sockaddr *)&sin, 0)) != 0 ||
	    (rv = uv_listen((uv_stream_t *)&l->h.tcp, 128,
	    server_accept)) != 0) {
		snprintf(err, errlen, "cannot listen on 127.0.0.1:%d: %s",
		    port, uv_strerror(rv));
		server_close(l);
		return NULL;
	}
	return l;
}

struct server_listener *
server_listen_unix(struct engine *e, const char *path, const char *app_id,
    const struct api_route *routes, size_t nroutes, char *err,
    size_t errlen)
{
	struct server_listener	*l;
	mode_t			 old;
	int			 rv;

	l = server_listener_new(e, 1, routes, nroutes);
	l->app_id = app_id != NULL ? xstrdup(app_id) : NULL;
	unlink(path);
	old = umask(0177);
	rv = uv_pipe_bind(&l->h.pipe, path);
	umask(old);
	if (rv == 0)
		l->path = xstrdup(path);
	if (rv != 0 || (rv = uv_listen((uv_stream_t *)&l->h.pipe, 128,
	    server_accept)) != 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", path,
		    uv_strerror(rv));
		server_close(l);
		return NULL;
	}
	return l;
}

/* The socket's folder must be ours and closed to everyone else. */
static int
server_check_dir(const char *dir, char *err, size_t errlen)
{
	struct stat	st;

	if (paths_mkdirs(dir, 0700) == -1) {
		snprintf(err, errlen, "cannot create %s: %s", dir,
		    strerror(errno));
		return -1;
	}
	if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s is not a directory", dir);
		return -1;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errlen, "%s belongs to uid %u, not to you; use "
		    "another --socket", dir, (unsigned)st.st_uid);
		return -1;
	}
	if ((st.st_mode & 077) != 0) {
		snprintf(err, errlen, "%s is open to other users (mode %03o);"
		    " chmod 700 it or use another --socket", dir,
		    (unsigned)(st.st_mode & 0777));
		return -1;
	}
	return 0;
}

int
server_start(struct engine *e, char *err, size_t errlen)
{
	const char	*sock = e->paths.socket;
	char		 dir[PATH_MAX], *slash;

	snprintf(dir, sizeof dir, "%s", sock);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (server_check_dir(dir, err, errlen) == -1)
			return -1;
		{
			char canon[PATH_MAX];

			free(e->socket_dir);
			e->socket_dir = xstrdup(realpath(dir, canon) != NULL ?
			    canon : dir);
		}
	}

	/* Two engines on one socket would fight over it: lock first. */
	xasprintf(&server_lock_path, "%s.lock", sock);
	server_lock_fd = open(server_lock_path,
	    O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (server_lock_fd == -1) {
		snprintf(err, errlen, "cannot open %s: %s", server_lock_path,
		    strerror(errno));
		return -1;
	}
	if (flock(server_lock_fd, LOCK_EX | LOCK_NB) == -1) {
		snprintf(err, errlen, "another spaceboxd is already running "
		    "on %s", sock);
		close(server_lock_fd);
		server_lock_fd = -1;
		return -1;
	}
	/* We hold the lock, so a socket left there is stale. */
	server_mgmt = server_listen_unix(e, sock, NULL, api_routes,
	    api_nroutes, err, errlen);
	if (server_mgmt == NULL)
		return -1;
	server_mgmt->check_peer = 1;
	if (chmod(sock, 0600) == -1) {
		snprintf(err, errlen, "cannot chmod %s: %s", sock,
		    strerror(errno));
		return -1;
	}
	return 0;
}

void
server_stop(struct engine *e)
{
	while (!LIST_EMPTY(&server_listeners))
		server_close(LIST_FIRST(&server_listeners));
	server_mgmt = NULL;
	/* The lock file stays: unlinking it would race a starting engine. */
	if (server_lock_fd != -1) {
		close(server_lock_fd);
		server_lock_fd = -1;
	}
	free(server_lock_path);
	server_lock_path = NULL;
}
