/*
 * The allowlist proxy.
 *
 * One listener per app.  Each client connection goes through:
 *
 *   HEAD       reading the request head (http-parser, limits as bytes
 *              arrive, a whole-header deadline); nothing is forwarded
 *   RESOLVING  the target passed syntax, port and site-list checks and
 *              is being resolved once with getaddrinfo
 *   CONNECTING every answer was classified and the first permitted one
 *              is being dialled (exactly that address: no second lookup,
 *              so DNS rebinding gets nothing)
 *   TUNNEL     CONNECT: bytes are relayed both ways; early bytes that
 *              arrived with the head are sent only now, only here.  Once
 *              the 200 and those bytes are written, both sockets go to a
 *              splice pair (splice.c): no more copies through user space
 *   FORWARD    plain http://: one request, rewritten (origin-form,
 *              hop-by-hop and Proxy-* headers removed, Connection:
 *              close), its body streamed, the answer relayed until the
 *              origin closes; then the client connection closes too
 *
 * Refusals answer 403 with X-Proxy-Error: blocked-by-spacebox and one line
 * saying what and how to allow it.  A connection owns its handles and is
 * freed when the last of them has closed, no resolution is in flight and
 * its splice pair, if any, is over.
 */
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "addr.h"
#include "host.h"
#include "httpmsg.h"
#include "log.h"
#include "proxy.h"
#include "splice.h"
#include "xmalloc.h"

#define PROXY_READ_SIZE		65536
#define PROXY_HIGH_WATER	(1024 * 1024)

enum proxy_state {
	PS_HEAD,
	PS_RESOLVING,
	PS_CONNECTING,
	PS_TUNNEL,
	PS_FORWARD,
	PS_CLOSING
};

struct proxy_conn;

/*
 * One listener, TCP on 127.0.0.1 or a unix socket.  Owned by its proxy.
 */
struct proxy_listener {
	union {
		uv_tcp_t	 tcp;
		uv_pipe_t	 pipe;
	} h;
	int			 is_pipe;
	char			*path;		/* unix socket, unlinked at stop */
	struct proxy		*proxy;
	SLIST_ENTRY(proxy_listener) entry;
};

struct proxy {
	uv_loop_t		*loop;
	char			*app_id;
	struct proxy_limits	 limits;
	char			*hosts[POLICY_MAX_HOSTS];
	size_t			 nhosts;
	int			 allow_private;
	int			 port;

	uint64_t		 allowed;
	uint64_t		 denied;
	char			*wants[PROXY_MAX_WANTS];	/* oldest first */
	size_t			 nwants;
	char			*reached[PROXY_MAX_WANTS];	/* allowed hosts */
	size_t			 nreached;
	proxy_want_cb		 want_cb;
	void			*want_arg;

	int			 ntunnels;
	int			 stopping;
	int			 refs;		/* listeners + connections */
	SLIST_HEAD(, proxy_listener) listeners;
	TAILQ_HEAD(, proxy_conn) conns;
};

/*
 * One client connection and, once decided, its upstream.  Created on
 * accept; freed when refs (open handles, in-flight requests and the
 * splice pair) is 0.  A tunnel's client and upstream handles are closed
 * when the pair takes their sockets over (sp set); the timer stays.
 */
struct proxy_conn {
	struct proxy		*proxy;
	enum proxy_state	 state;
	int			 refs;
	int			 counted;	/* holds a tunnel slot */

	union {
		uv_tcp_t	 tcp;
		uv_pipe_t	 pipe;
	} client;
	uv_tcp_t		 upstream;
	int			 upstream_init;
	uv_timer_t		 timer;
	uv_getaddrinfo_t	 gai;
	uv_connect_t		 connect;
	struct splice_pair	*sp;		/* TUNNEL: relaying */
	int			 nwrites;	/* queued, not yet called back */

	struct httpmsg		 msg;
	char			*pending;	/* unparsed bytes after the head */
	size_t			 npending;
	int			 is_connect;
	int			 chunked;	/* re-chunk the body upstream */
	int			 request_done;	/* FORWARD: body all sent */
	int			 client_eof;
	int			 upstream_eof;

	char			 host[HOST_BUF_LEN];
	int			 port;
	char			*path;		/* FORWARD: origin-form target */
	struct sockaddr_storage	 dest;
	struct proxy_target	 t;

	TAILQ_ENTRY(proxy_conn)	 entry;
};

struct proxy_write {
	uv_write_t		 req;
	char			*buf;
	struct proxy_conn	*conn;
	int			 to_client;
};

static void	proxy_conn_close(struct proxy_conn *);
static void	proxy_client_read(uv_stream_t *, ssize_t, const uv_buf_t *);
static void	proxy_upstream_read(uv_stream_t *, ssize_t, const uv_buf_t *);
static void	proxy_release(struct proxy *);
static void	proxy_splice(struct proxy_conn *);

static uv_stream_t *
proxy_client(struct proxy_conn *c)
{
	return (uv_stream_t *)&c->client;
}

static int
proxy_web_port(int port)
{
	return port == 80 || port == 443 || port == 8080 || port == 8443;
}

/* Relaying and answering. */

static void
proxy_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	buf->base = xmalloc(PROXY_READ_SIZE);
	buf->len = PROXY_READ_SIZE;
}

static void
proxy_unref(struct proxy_conn *c)
{
	struct proxy	*p = c->proxy;

	if (--c->refs > 0)
		return;
	TAILQ_REMOVE(&p->conns, c, entry);
	httpmsg_free(&c->msg);
	free(c->pending);
	free(c->path);
	free(c->t.path);
	free(c);
	proxy_release(p);
}

static void
proxy_handle_closed(uv_handle_t *h)
{
	proxy_unref(h->data);
}

/* FORWARD: resume the side whose reads were stopped for backpressure. */
static void
proxy_maybe_resume(struct proxy_conn *c, int to_client)
{
	uv_stream_t	*dst, *src;

	if (c->state != PS_FORWARD)
		return;
	dst = to_client ? proxy_client(c) : (uv_stream_t *)&c->upstream;
	src = to_client ? (uv_stream_t *)&c->upstream : proxy_client(c);
	if (uv_stream_get_write_queue_size(dst) >= PROXY_HIGH_WATER)
		return;
	if (to_client && !c->upstream_eof)
		uv_read_start(src, proxy_alloc, proxy_upstream_read);
	else if (!to_client && !c->client_eof && !c->request_done)
		uv_read_start(src, proxy_alloc, proxy_client_read);
}

static void
proxy_write_done(uv_write_t *req, int status)
{
	struct proxy_write	*w = (struct proxy_write *)req;
	struct proxy_conn	*c = w->conn;

	free(w->buf);
	c->nwrites--;
	if (status < 0 && c->state != PS_CLOSING)
		proxy_conn_close(c);
	else if (status == 0 && c->state == PS_TUNNEL) {
		/* The 200 and any early bytes are out: splice from now on. */
		if (c->nwrites == 0 && c->sp == NULL)
			proxy_splice(c);
	} else if (status == 0)
		proxy_maybe_resume(c, w->to_client);
	free(w);
	proxy_unref(c);
}

/* Queue buf (owned, freed after the write) on one side. */
static int
proxy_send(struct proxy_conn *c, int to_client, char *buf, size_t len)
{
	struct proxy_write	*w;
	uv_stream_t		*dst;
	uv_buf_t		 b;

	dst = to_client ? proxy_client(c) : (uv_stream_t *)&c->upstream;
	if (len == 0 || uv_is_closing((uv_handle_t *)dst)) {
		free(buf);
		return 0;
	}
	w = xcalloc(1, sizeof *w);
	w->buf = buf;
	w->conn = c;
	w->to_client = to_client;
	b = uv_buf_init(buf, (unsigned int)len);
	if (uv_write(&w->req, dst, &b, 1, proxy_write_done) != 0) {
		free(buf);
		free(w);
		proxy_conn_close(c);
		return -1;
	}
	c->refs++;
	c->nwrites++;
	return 0;
}

static void
proxy_send_copy(struct proxy_conn *c, int to_client, const char *data,
    size_t len)
{
	char	*buf;

	if (len == 0)
		return;
	buf = xmalloc(len);
	memcpy(buf, data, len);
	proxy_send(c, to_client, buf, len);
}

static void
proxy_shutdown_done(uv_shutdown_t *req, int status)
{
	struct proxy_conn	*c = req->data;

	free(req);
	proxy_conn_close(c);
	proxy_unref(c);
}

/* Close once everything queued to the client has been written. */
static void
proxy_finish(struct proxy_conn *c)
{
	uv_shutdown_t	*req;

	if (c->state == PS_CLOSING)
		return;
	c->state = PS_CLOSING;
	uv_read_stop(proxy_client(c));
	if (c->upstream_init)
		uv_read_stop((uv_stream_t *)&c->upstream);
	req = xcalloc(1, sizeof *req);
	req->data = c;
	if (uv_shutdown(req, proxy_client(c), proxy_shutdown_done) != 0) {
		free(req);
		proxy_conn_close(c);
		return;
	}
	c->refs++;
}

/*
 * Answer the client with an error and close.  Refusals (403) carry the
 * X-Proxy-Error header the seed's clients look for.
 */
static void
proxy_reply(struct proxy_conn *c, int status, const char *fmt, ...)
{
	va_list	 ap;
	char	*line, *out;
	int	 n;

	va_start(ap, fmt);
	xvasprintf(&line, fmt, ap);
	va_end(ap);
	n = xasprintf(&out, "HTTP/1.1 %d %s\r\n"
	    "Content-Type: text/plain; charset=utf-8\r\n"
	    "Content-Length: %zu\r\n"
	    "%s"
	    "Connection: close\r\n\r\n%s\n",
	    status, httpmsg_reason(status), strlen(line) + 1,
	    status == 403 ? "X-Proxy-Error: blocked-by-spacebox\r\n" : "",
	    line);
	log_debug("proxy %s: %d %s", c->proxy->app_id, status, line);
	free(line);
	proxy_send(c, 1, out, (size_t)n);
	proxy_finish(c);
}

static void
proxy_release_slot(struct proxy_conn *c)
{
	if (c->counted) {
		c->counted = 0;
		c->proxy->ntunnels--;
	}
}

static void
proxy_conn_close(struct proxy_conn *c)
{
	if (c->state == PS_CLOSING && uv_is_closing(
	    (uv_handle_t *)proxy_client(c)))
		return;
	c->state = PS_CLOSING;
	proxy_release_slot(c);
	if (c->sp != NULL)
		splice_pair_close(c->sp);
	if (!uv_is_closing((uv_handle_t *)proxy_client(c)))
		uv_close((uv_handle_t *)proxy_client(c), proxy_handle_closed);
	if (c->upstream_init && !uv_is_closing((uv_handle_t *)&c->upstream))
		uv_close((uv_handle_t *)&c->upstream, proxy_handle_closed);
	if (!uv_is_closing((uv_handle_t *)&c->timer))
		uv_close((uv_handle_t *)&c->timer, proxy_handle_closed);
}

/* Wants and counters. */

static void
proxy_want(struct proxy *p, const char *host)
{
	size_t	i;

	for (i = 0; i < p->nwants; i++) {
		if (strcmp(p->wants[i], host) != 0)
			continue;
		/* Known: move it to the end, most recent last. */
		free(p->wants[i]);
		memmove(&p->wants[i], &p->wants[i + 1],
		    (p->nwants - i - 1) * sizeof p->wants[0]);
		p->wants[p->nwants - 1] = xstrdup(host);
		return;
	}
	if (p->nwants == PROXY_MAX_WANTS) {
		free(p->wants[0]);
		memmove(&p->wants[0], &p->wants[1],
		    (p->nwants - 1) * sizeof p->wants[0]);
		p->nwants--;
	}
	p->wants[p->nwants++] = xstrdup(host);
	if (p->want_cb != NULL)
		p->want_cb(p->want_arg, p->app_id, host);
}

/* Distinct hosts actually connected to (a command's result lists them). */
static void
proxy_reached(struct proxy *p, const char *host)
{
	size_t	i;

	for (i = 0; i < p->nreached; i++) {
		if (strcmp(p->reached[i], host) == 0)
			return;
	}
	if (p->nreached < PROXY_MAX_WANTS)
		p->reached[p->nreached++] = xstrdup(host);
}

static void
proxy_deny(struct proxy_conn *c, const char *fmt, ...)
{
	va_list	 ap;
	char	*line;

	va_start(ap, fmt);
	xvasprintf(&line, fmt, ap);
	va_end(ap);
	c->proxy->denied++;
	proxy_reply(c, 403, "%s", line);
	free(line);
}

/* Timers: header deadline, connect timeout, idle tunnel. */

static void
proxy_timeout(uv_timer_t *t)
{
	struct proxy_conn	*c = t->data;

	switch (c->state) {
	case PS_HEAD:
		proxy_reply(c, 408, "spacebox: the request head did not "
		    "arrive within %d s", c->proxy->limits.header_secs);
		break;
	case PS_RESOLVING:
	case PS_CONNECTING:
		proxy_reply(c, 504, "spacebox: %s:%d did not answer within "
		    "%d s", c->host, c->port, c->proxy->limits.connect_secs);
		break;
	case PS_TUNNEL:
	case PS_FORWARD:
		log_debug("proxy %s: idle tunnel to %s closed",
		    c->proxy->app_id, c->host);
		proxy_conn_close(c);
		break;
	default:
		break;
	}
}

static void
proxy_arm(struct proxy_conn *c, int secs)
{
	uint64_t	ms = (uint64_t)secs * 1000;

	uv_timer_start(&c->timer, proxy_timeout, ms, 0);
}

/* Relaying. */

/* Bytes went through a spliced tunnel: it is not idle. */
static void
proxy_splice_activity(void *arg)
{
	struct proxy_conn	*c = arg;

	if (c->state == PS_TUNNEL)
		uv_timer_again(&c->timer);
}

/* The splice pair is over (both ways ended, an error, or closed by us). */
static void
proxy_splice_done(void *arg, int error)
{
	struct proxy_conn	*c = arg;

	c->sp = NULL;
	if (error && c->state == PS_TUNNEL)
		log_debug("proxy %s: tunnel to %s reset", c->proxy->app_id,
		    c->host);
	proxy_conn_close(c);
	proxy_unref(c);
}

/*
 * A tunnel is up and everything queued so far (the 200, early bytes) has
 * been written: hand both sockets to a splice pair.  Closing a libuv
 * handle closes its socket, so the pair gets duplicates, made one at a
 * time (at most one spare descriptor).  The closed handles drop their
 * refs as usual; the pair holds one until its done callback.
 */
static void
proxy_splice(struct proxy_conn *c)
{
	uv_handle_t	*h[2];
	uv_os_fd_t	 fd;
	int		 dupfd[2] = { -1, -1 }, i;

	h[0] = (uv_handle_t *)proxy_client(c);
	h[1] = (uv_handle_t *)&c->upstream;
	for (i = 0; i < 2; i++) {
		if (uv_fileno(h[i], &fd) != 0 ||
		    (dupfd[i] = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1) {
			log_warn("proxy %s: tunnel to %s", c->proxy->app_id,
			    c->host);
			if (dupfd[0] != -1)
				close(dupfd[0]);
			proxy_conn_close(c);
			return;
		}
		uv_close(h[i], proxy_handle_closed);
	}
	c->sp = splice_pair_new(c->proxy->loop, dupfd[0], dupfd[1],
	    proxy_splice_activity, proxy_splice_done, c);
	if (c->sp == NULL) {
		proxy_conn_close(c);
		return;
	}
	c->refs++;
}

static void
proxy_upstream_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct proxy_conn	*c = s->data;

	if (nread == 0) {
		free(buf->base);
		return;
	}
	if (nread < 0) {
		free(buf->base);
		c->upstream_eof = 1;
		uv_read_stop(s);
		proxy_finish(c);
		return;
	}
	uv_timer_again(&c->timer);
	proxy_send(c, 1, buf->base, (size_t)nread);
	if (uv_stream_get_write_queue_size(proxy_client(c)) >=
	    PROXY_HIGH_WATER)
		uv_read_stop(s);
}

static void
proxy_body(struct httpmsg *m, const char *at, size_t n)
{
	struct proxy_conn	*c = m->arg;
	char			*buf;
	int			 len;

	if (!c->chunked) {
		proxy_send_copy(c, 0, at, n);
		return;
	}
	/* The client's chunking is not trusted: re-chunk what we parsed. */
	buf = xmalloc(n + 32);
	len = snprintf(buf, 32, "%zx\r\n", n);
	memcpy(buf + len, at, n);
	memcpy(buf + len + n, "\r\n", 2);
	proxy_send(c, 0, buf, (size_t)len + n + 2);
}

/* Feed client bytes to the parser while a plain request's body flows. */
static void
proxy_forward_body(struct proxy_conn *c, const char *data, size_t len)
{
	ssize_t	n;

	if (c->request_done || len == 0)
		return;
	if ((n = httpmsg_feed(&c->msg, data, len)) == -1) {
		proxy_conn_close(c);
		return;
	}
	if (c->msg.complete) {
		if (c->chunked)
			proxy_send_copy(c, 0, "0\r\n\r\n", 5);
		c->request_done = 1;
		/* One request per connection: the rest is not read. */
		uv_read_stop(proxy_client(c));
	}
}

static void	proxy_head(struct proxy_conn *, const char *, size_t);

static void
proxy_client_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct proxy_conn	*c = s->data;

	if (nread == 0) {
		free(buf->base);
		return;
	}
	if (nread < 0) {
		free(buf->base);
		c->client_eof = 1;
		uv_read_stop(s);
		if (c->state != PS_FORWARD || !c->request_done)
			proxy_conn_close(c);
		return;
	}
	switch (c->state) {
	case PS_HEAD:
		proxy_head(c, buf->base, (size_t)nread);
		free(buf->base);
		break;
	case PS_FORWARD:
		uv_timer_again(&c->timer);
		proxy_forward_body(c, buf->base, (size_t)nread);
		free(buf->base);
		break;
	default:
		/* Reads are stopped while deciding; drop stragglers. */
		free(buf->base);
		break;
	}
}

/* Rewrite the head of a plain request for the origin. */
static int
proxy_hop_by_hop(const struct httpmsg *m, const char *name)
{
	static const char *const hop[] = {
		"connection", "keep-alive", "te", "trailer",
		"transfer-encoding", "upgrade", "host", "content-length",
		NULL
	};
	const char	*conn, *p;
	size_t		 i, len = strlen(name);

	if (strncasecmp(name, "proxy-", 6) == 0)
		return 1;
	for (i = 0; hop[i] != NULL; i++) {
		if (strcasecmp(name, hop[i]) == 0)
			return 1;
	}
	/* Headers named by Connection: are hop-by-hop too. */
	for (i = 0; i < m->nheaders; i++) {
		if (strcasecmp(m->headers[i].name, "connection") != 0)
			continue;
		conn = m->headers[i].value;
		while (*conn != '\0') {
			conn += strspn(conn, " \t,");
			p = conn + strcspn(conn, " \t,");
			if ((size_t)(p - conn) == len &&
			    strncasecmp(conn, name, len) == 0)
				return 1;
			conn = p;
		}
	}
	return 0;
}

static void
proxy_send_head(struct proxy_conn *c)
{
	const struct httpmsg	*m = &c->msg;
	const char		*host;
	char			*out, *tmp;
	size_t			 i;

	host = httpmsg_header(m, "host");
	xasprintf(&out, "%s %s HTTP/1.1\r\n", http_method_str(
	    m->parser.method), c->path);
	if (host != NULL)
		xasprintf(&tmp, "%sHost: %s\r\n", out, host);
	else if (c->port == 80)
		xasprintf(&tmp, "%sHost: %s\r\n", out, c->host);
	else
		xasprintf(&tmp, "%sHost: %s:%d\r\n", out, c->host, c->port);
	free(out);
	out = tmp;
	for (i = 0; i < m->nheaders; i++) {
		if (proxy_hop_by_hop(m, m->headers[i].name))
			continue;
		xasprintf(&tmp, "%s%s: %s\r\n", out, m->headers[i].name,
		    m->headers[i].value);
		free(out);
		out = tmp;
	}
	if (c->chunked)
		xasprintf(&tmp, "%sTransfer-Encoding: chunked\r\n", out);
	else if (m->parser.content_length != UINT64_MAX &&
	    m->parser.content_length > 0)
		xasprintf(&tmp, "%sContent-Length: %llu\r\n", out,
		    (unsigned long long)m->parser.content_length);
	else
		tmp = xstrdup(out);
	free(out);
	xasprintf(&out, "%sConnection: close\r\n\r\n", tmp);
	free(tmp);
	proxy_send(c, 0, out, strlen(out));
}

/* The upstream answered the dial: start relaying. */
static void
proxy_connected(uv_connect_t *req, int status)
{
	struct proxy_conn	*c = req->data;
	char			*pending;
	size_t			 npending;
	ssize_t			 n;

	if (c->state != PS_CONNECTING) {
		proxy_unref(c);
		return;
	}
	proxy_unref(c);
	if (status < 0) {
		proxy_reply(c, 502, "spacebox: cannot connect to %s:%d: %s",
		    c->host, c->port, uv_strerror(status));
		return;
	}
	uv_tcp_nodelay(&c->upstream, 1);
	proxy_reached(c->proxy, c->host);
	pending = c->pending;
	npending = c->npending;
	c->pending = NULL;
	c->npending = 0;
	httpmsg_resume(&c->msg);
	if (c->is_connect) {
		c->state = PS_TUNNEL;
		proxy_send_copy(c, 1, "HTTP/1.1 200 Connection established"
		    "\r\n\r\n", 39);
		/* Finish the head; what follows it is early tunnel data. */
		n = httpmsg_feed(&c->msg, pending, npending);
		if (n >= 0 && (size_t)n < npending)
			proxy_send_copy(c, 0, pending + n, npending - (size_t)n);
		/* The head is no longer needed: keep idle tunnels small. */
		httpmsg_free(&c->msg);
	} else {
		c->state = PS_FORWARD;
		proxy_send_head(c);
		proxy_forward_body(c, pending, npending);
	}
	free(pending);
	if (c->state == PS_CLOSING)
		return;
	uv_timer_start(&c->timer, proxy_timeout,
	    (uint64_t)c->proxy->limits.idle_secs * 1000,
	    (uint64_t)c->proxy->limits.idle_secs * 1000);
	/* A tunnel is spliced once its writes are done (proxy_write_done). */
	if (c->state == PS_TUNNEL)
		return;
	uv_read_start((uv_stream_t *)&c->upstream, proxy_alloc,
	    proxy_upstream_read);
	if (!c->request_done && !c->client_eof)
		uv_read_start(proxy_client(c), proxy_alloc, proxy_client_read);
}

/*
 * 1 when sa is one of this machine's own interface addresses.  Listing
 * the interfaces costs a netlink dump (a dozen system calls), so the list
 * is kept for a second: new addresses are seen that fast, and a burst of
 * connections pays once.
 */
#define PROXY_IFS_TTL_MS	1000

static int
proxy_is_own(uv_loop_t *loop, const struct sockaddr *sa)
{
	static uv_interface_address_t	*ifs;
	static int			 nifs;
	static uint64_t			 when;
	int				 i;

	if (ifs == NULL || uv_now(loop) - when > PROXY_IFS_TTL_MS) {
		if (ifs != NULL)
			uv_free_interface_addresses(ifs, nifs);
		ifs = NULL;
		nifs = 0;
		if (uv_interface_addresses(&ifs, &nifs) != 0) {
			/* Cannot tell what is local: refuse, fail closed. */
			ifs = NULL;
			nifs = 0;
			return 1;
		}
		when = uv_now(loop);
	}
	for (i = 0; i < nifs; i++) {
		if (addr_same_ip(sa, (struct sockaddr *)&ifs[i].address))
			return 1;
	}
	return 0;
}

static void
proxy_resolved(uv_getaddrinfo_t *req, int status, struct addrinfo *res)
{
	struct proxy_conn	*c = req->data;
	struct addrinfo		*ai;
	enum addr_class		 cls;
	char			 ip[INET6_ADDRSTRLEN] = "";
	const char		*reason = NULL;
	const struct sockaddr	*pick = NULL;
	int			 rv, own;

	if (c->state != PS_RESOLVING) {
		uv_freeaddrinfo(res);
		proxy_unref(c);
		return;
	}
	proxy_unref(c);
	if (status < 0) {
		c->proxy->denied++;
		proxy_reply(c, 502, "spacebox: cannot resolve %s: %s",
		    c->host, uv_strerror(status));
		return;
	}
	/*
	 * Judge every answer; dial the first that passes and nothing else.
	 * The first refused one names the reason if none passes.
	 */
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		cls = addr_classify(ai->ai_addr);
		own = proxy_is_own(c->proxy->loop, ai->ai_addr);
		if (addr_permitted(cls, c->proxy->allow_private) && !own) {
			if (pick == NULL) {
				pick = ai->ai_addr;
				memcpy(&c->dest, ai->ai_addr, ai->ai_addrlen);
			}
			continue;
		}
		if (reason == NULL) {
			reason = own ? "an address of this machine" :
			    addr_class_name(cls);
			addr_format(ai->ai_addr, ip, sizeof ip);
		}
	}
	uv_freeaddrinfo(res);
	if (pick == NULL) {
		proxy_deny(c, "spacebox: %s resolves to %s (%s); the proxy "
		    "never connects there", c->host, ip[0] != '\0' ? ip : "?",
		    reason != NULL ? reason : "no address");
		return;
	}
	if (c->proxy->ntunnels >= c->proxy->limits.max_tunnels) {
		proxy_reply(c, 429, "spacebox: this app already has %d open "
		    "connections through the proxy", c->proxy->ntunnels);
		return;
	}
	c->counted = 1;
	c->proxy->ntunnels++;
	c->proxy->allowed++;
	c->state = PS_CONNECTING;
	uv_tcp_init(c->proxy->loop, &c->upstream);
	c->upstream.data = c;
	c->upstream_init = 1;
	c->refs++;
	c->connect.data = c;
	rv = uv_tcp_connect(&c->connect, &c->upstream,
	    (struct sockaddr *)&c->dest, proxy_connected);
	if (rv != 0) {
		proxy_reply(c, 502, "spacebox: cannot connect to %s:%d: %s",
		    c->host, c->port, uv_strerror(rv));
		return;
	}
	c->refs++;
	proxy_arm(c, c->proxy->limits.connect_secs);
}

/*
 * Split "host:port" (CONNECT's authority form).  The port is required,
 * decimal, without leading zeros, 1-65535.
 */
static int
proxy_parse_port(const char *s, size_t len, int *port)
{
	size_t	i;
	long	v = 0;

	if (len == 0 || len > 5 || (s[0] == '0'))
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*port = (int)v;
	return 0;
}

/*
 * Work out the target from the request line.  Returns 0, or an HTTP
 * status with the reason in *why.
 */
static int
proxy_target(const struct httpmsg *m, struct proxy_target *c,
    const char **why)
{
	struct http_parser_url	 u;
	char			 raw[HOST_BUF_LEN + 8];
	const char		*url = m->url, *colon, *hp;
	size_t			 hl;
	int			 is_ip;

	if (url == NULL || m->urllen == 0) {
		*why = "empty request target";
		return 400;
	}
	if (c->is_connect) {
		/* Authority form only: host:port, IPv6 in brackets. */
		if (strpbrk(url, "@/?#") != NULL) {
			*why = "CONNECT takes host:port only";
			return 400;
		}
		if ((colon = strrchr(url, ':')) == NULL ||
		    (url[0] == '[' && colon < strchr(url, ']'))) {
			*why = "CONNECT needs host:port";
			return 400;
		}
		if (proxy_parse_port(colon + 1, strlen(colon + 1),
		    &c->port) == -1) {
			*why = "port must be a number from 1 to 65535";
			return 400;
		}
		hp = url;
		hl = (size_t)(colon - url);
	} else {
		http_parser_url_init(&u);
		if (http_parser_parse_url(url, m->urllen, 0, &u) != 0 ||
		    !(u.field_set & (1 << UF_SCHEMA)) ||
		    !(u.field_set & (1 << UF_HOST))) {
			*why = "a proxy request needs an absolute http:// URL "
			    "(use CONNECT for https)";
			return 400;
		}
		if (u.field_data[UF_SCHEMA].len != 4 || strncasecmp(url +
		    u.field_data[UF_SCHEMA].off, "http", 4) != 0) {
			*why = "only http:// URLs are forwarded; use CONNECT "
			    "for https";
			return 400;
		}
		if (u.field_set & (1 << UF_USERINFO)) {
			*why = "user information in the URL is not allowed";
			return 400;
		}
		c->port = 80;
		if (u.field_set & (1 << UF_PORT)) {
			if (proxy_parse_port(url + u.field_data[UF_PORT].off,
			    u.field_data[UF_PORT].len, &c->port) == -1) {
				*why = "port must be a number from 1 to 65535";
				return 400;
			}
		}
		hp = url + u.field_data[UF_HOST].off;
		hl = u.field_data[UF_HOST].len;
		/* http-parser strips IPv6 brackets; put them back. */
		if (hp > url && hp[-1] == '[' && hp[hl] == ']') {
			hp--;
			hl += 2;
		}
		if (u.field_set & (1 << UF_PATH)) {
			c->path = xstrndup(url + u.field_data[UF_PATH].off,
			    u.field_data[UF_PATH].len);
			if (u.field_set & (1 << UF_QUERY)) {
				char *t;

				xasprintf(&t, "%s?%.*s", c->path,
				    (int)u.field_data[UF_QUERY].len,
				    url + u.field_data[UF_QUERY].off);
				free(c->path);
				c->path = t;
			}
		} else
			c->path = xstrdup("/");
	}
	if (hl == 0 || hl >= sizeof raw) {
		*why = "bad host name";
		return 400;
	}
	memcpy(raw, hp, hl);
	raw[hl] = '\0';
	if (host_target_normalize(raw, c->host, sizeof c->host, &is_ip,
	    why) == -1)
		return 400;
	return 0;
}

/* Host header of a plain request: exactly one, naming the target. */
static int
proxy_check_host_header(const struct httpmsg *m, struct proxy_target *c,
    const char **why)
{
	const char	*h, *colon;
	char		 name[HOST_BUF_LEN + 8], norm[HOST_BUF_LEN];
	size_t		 len;
	int		 port = 80, is_ip;

	if (httpmsg_count(m, "host") > 1) {
		*why = "more than one Host header";
		return -1;
	}
	if ((h = httpmsg_header(m, "host")) == NULL)
		return 0;
	len = strlen(h);
	colon = strrchr(h, ':');
	if (colon != NULL && (h[0] != '[' || colon > strchr(h, ']'))) {
		if (proxy_parse_port(colon + 1, strlen(colon + 1),
		    &port) == -1) {
			*why = "bad port in the Host header";
			return -1;
		}
		len = (size_t)(colon - h);
	} else if (c->is_connect)
		port = c->port;
	if (len == 0 || len >= sizeof name) {
		*why = "bad Host header";
		return -1;
	}
	memcpy(name, h, len);
	name[len] = '\0';
	if (host_target_normalize(name, norm, sizeof norm, &is_ip,
	    why) == -1)
		return -1;
	if (strcmp(norm, c->host) != 0 || port != c->port) {
		*why = "the Host header does not name the request's target";
		return -1;
	}
	return 0;
}

/* Header values must not smuggle line breaks or NULs past the parser. */
static int
proxy_headers_clean(const struct httpmsg *m)
{
	size_t	i;

	for (i = 0; i < m->nheaders; i++) {
		if (strpbrk(m->headers[i].name, "\r\n") != NULL ||
		    strpbrk(m->headers[i].value, "\r\n") != NULL ||
		    m->headers[i].name[0] == '\0')
			return 0;
	}
	return 1;
}

int
proxy_check_request(const struct httpmsg *m, struct proxy_target *t,
    const char **why)
{
	int	status;

	memset(t, 0, sizeof *t);
	t->is_connect = m->parser.method == HTTP_CONNECT;
	if (!proxy_headers_clean(m)) {
		*why = "malformed header";
		return 400;
	}
	if ((status = proxy_target(m, t, why)) != 0)
		return status;
	if (httpmsg_count(m, "host") > 1) {
		*why = "more than one Host header";
		return 400;
	}
	if (t->is_connect)
		return 0;
	if (proxy_check_host_header(m, t, why) == -1)
		return 400;
	if (httpmsg_header(m, "transfer-encoding") != NULL &&
	    httpmsg_header(m, "content-length") != NULL) {
		*why = "both Content-Length and Transfer-Encoding";
		return 400;
	}
	t->chunked = (m->parser.flags & F_CHUNKED) != 0;
	return 0;
}

/* The head is complete: judge it, then resolve. */
static void
proxy_decide(struct proxy_conn *c)
{
	struct proxy	*p = c->proxy;
	struct addrinfo	 hints;
	const char	*why = NULL;
	int		 status, is_ip, rv;
	char		 tmp[HOST_BUF_LEN];

	if ((status = proxy_check_request(&c->msg, &c->t, &why)) != 0) {
		proxy_reply(c, status, "spacebox: %s", why);
		return;
	}
	c->is_connect = c->t.is_connect;
	c->chunked = c->t.chunked;
	c->port = c->t.port;
	c->path = c->t.path;
	c->t.path = NULL;
	memcpy(c->host, c->t.host, sizeof c->host);
	if (!proxy_web_port(c->port)) {
		proxy_deny(c, "spacebox: port %d of %s is not a web port; only "
		    "80, 443, 8080 and 8443 are reachable", c->port, c->host);
		return;
	}
	host_target_normalize(c->host, tmp, sizeof tmp, &is_ip, &why);
	if (is_ip) {
		proxy_deny(c, "spacebox: %s is an IP address; this app may "
		    "reach only the sites on its list, by name", c->host);
		return;
	}
	if (host_match_list(p->hosts, p->nhosts, c->host) == -1) {
		proxy_want(p, c->host);
		proxy_deny(c, "spacebox: %s is not on this app's site list; "
		    "allow it with: spacebox allow %s %s", c->host, p->app_id,
		    c->host);
		return;
	}

	c->state = PS_RESOLVING;
	memset(&hints, 0, sizeof hints);
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_protocol = IPPROTO_TCP;
	snprintf(tmp, sizeof tmp, "%d", c->port);
	c->gai.data = c;
	rv = uv_getaddrinfo(p->loop, &c->gai, proxy_resolved, c->host, tmp,
	    &hints);
	if (rv != 0) {
		proxy_reply(c, 502, "spacebox: cannot resolve %s: %s",
		    c->host, uv_strerror(rv));
		return;
	}
	c->refs++;
	proxy_arm(c, p->limits.connect_secs);
}

static void
proxy_head(struct proxy_conn *c, const char *data, size_t len)
{
	ssize_t	n;

	if ((n = httpmsg_feed(&c->msg, data, len)) == -1) {
		proxy_reply(c, c->msg.status, "spacebox: %s", c->msg.error);
		return;
	}
	if (!c->msg.headers_done)
		return;
	/* Hold what came after the head until the decision. */
	uv_read_stop(proxy_client(c));
	c->npending = len - (size_t)n;
	c->pending = xmalloc(c->npending + 1);
	memcpy(c->pending, data + n, c->npending);
	proxy_decide(c);
}

static void
proxy_accept(uv_stream_t *ls, int status)
{
	struct proxy_listener	*l = ls->data;
	struct proxy		*p = l->proxy;
	struct proxy_conn	*c;

	if (status < 0 || p->stopping)
		return;
	c = xcalloc(1, sizeof *c);
	c->proxy = p;
	c->state = PS_HEAD;
	httpmsg_init(&c->msg, HTTP_REQUEST, PROXY_MAX_URL,
	    PROXY_MAX_HEADER_BYTES, 0);
	c->msg.pause_on_headers = 1;
	c->msg.body_cb = proxy_body;
	c->msg.arg = c;
	if (l->is_pipe)
		uv_pipe_init(p->loop, &c->client.pipe, 0);
	else
		uv_tcp_init(p->loop, &c->client.tcp);
	c->client.tcp.data = c;
	uv_timer_init(p->loop, &c->timer);
	c->timer.data = c;
	c->refs = 2;
	TAILQ_INSERT_TAIL(&p->conns, c, entry);
	p->refs++;
	if (uv_accept(ls, proxy_client(c)) != 0) {
		proxy_conn_close(c);
		return;
	}
	if (!l->is_pipe)
		uv_tcp_nodelay(&c->client.tcp, 1);
	proxy_arm(c, p->limits.header_secs);
	uv_read_start(proxy_client(c), proxy_alloc, proxy_client_read);
}

/* Life cycle. */

static void
proxy_set_hosts(struct proxy *p, const struct policy *pol)
{
	size_t	i, j;

	for (i = 0; i < p->nhosts; i++)
		free(p->hosts[i]);
	for (i = 0; i < pol->nhosts; i++)
		p->hosts[i] = xstrdup(pol->hosts[i]);
	p->nhosts = pol->nhosts;
	p->allow_private = pol->allow_private;

	/* A wanted site the list now covers is wanted no more. */
	for (i = 0, j = 0; i < p->nwants; i++) {
		if (host_match_list(p->hosts, p->nhosts, p->wants[i]) != -1)
			free(p->wants[i]);
		else
			p->wants[j++] = p->wants[i];
	}
	p->nwants = j;
}

struct proxy *
proxy_start(uv_loop_t *loop, const char *app_id, const struct policy *pol,
    const struct proxy_limits *limits, proxy_want_cb cb, void *arg,
    char *err, size_t errlen)
{
	struct proxy		*p;
	struct proxy_listener	*l;
	struct sockaddr_in	 sin;
	struct sockaddr_storage	 ss;
	int			 rv, len = sizeof ss;

	p = xcalloc(1, sizeof *p);
	p->loop = loop;
	p->app_id = xstrdup(app_id);
	p->limits = *limits;
	p->want_cb = cb;
	p->want_arg = arg;
	SLIST_INIT(&p->listeners);
	TAILQ_INIT(&p->conns);
	proxy_set_hosts(p, pol);

	l = xcalloc(1, sizeof *l);
	l->proxy = p;
	uv_tcp_init(loop, &l->h.tcp);
	l->h.tcp.data = l;
	SLIST_INSERT_HEAD(&p->listeners, l, entry);
	p->refs++;
	uv_ip4_addr("127.0.0.1", 0, &sin);
	if ((rv = uv_tcp_bind(&l->h.tcp, (struct sockaddr *)&sin, 0)) != 0 ||
	    (rv = uv_listen((uv_stream_t *)&l->h.tcp, 511,
	    proxy_accept)) != 0 ||
	    (rv = uv_tcp_getsockname(&l->h.tcp, (struct sockaddr *)&ss,
	    &len)) != 0) {
		snprintf(err, errlen, "cannot listen on 127.0.0.1: %s",
		    uv_strerror(rv));
		proxy_stop(p);
		return NULL;
	}
	p->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	log_info("proxy for %s listening on 127.0.0.1:%d", app_id, p->port);
	return p;
}

int
proxy_listen_unix(struct proxy *p, const char *path, char *err,
    size_t errlen)
{
	struct proxy_listener	*l;
	int			 rv;

	l = xcalloc(1, sizeof *l);
	l->proxy = p;
	l->is_pipe = 1;
	l->path = xstrdup(path);
	uv_pipe_init(p->loop, &l->h.pipe, 0);
	l->h.pipe.data = l;
	SLIST_INSERT_HEAD(&p->listeners, l, entry);
	p->refs++;
	unlink(path);
	if ((rv = uv_pipe_bind(&l->h.pipe, path)) != 0 ||
	    (rv = uv_listen((uv_stream_t *)&l->h.pipe, 511,
	    proxy_accept)) != 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", path,
		    uv_strerror(rv));
		return -1;
	}
	return 0;
}

int
proxy_port(const struct proxy *p)
{
	return p->port;
}

const char *
proxy_app_id(const struct proxy *p)
{
	return p->app_id;
}

void
proxy_set_policy(struct proxy *p, const struct policy *pol)
{
	struct proxy_conn	*c, *next;

	proxy_set_hosts(p, pol);
	/* A host that is no longer allowed loses its open tunnels. */
	for (c = TAILQ_FIRST(&p->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (c->state == PS_HEAD || c->state == PS_CLOSING)
			continue;
		if (host_match_list(p->hosts, p->nhosts, c->host) == -1) {
			log_info("proxy %s: closing the connection to %s, "
			    "no longer allowed", p->app_id, c->host);
			proxy_conn_close(c);
		}
	}
}

static void
proxy_free(struct proxy *p)
{
	size_t	i;

	for (i = 0; i < p->nhosts; i++)
		free(p->hosts[i]);
	for (i = 0; i < p->nwants; i++)
		free(p->wants[i]);
	for (i = 0; i < p->nreached; i++)
		free(p->reached[i]);
	free(p->app_id);
	free(p);
}

static void
proxy_release(struct proxy *p)
{
	if (--p->refs == 0 && p->stopping)
		proxy_free(p);
}

static void
proxy_listener_closed(uv_handle_t *h)
{
	struct proxy_listener	*l = h->data;
	struct proxy		*p = l->proxy;

	free(l->path);
	free(l);
	proxy_release(p);
}

void
proxy_stop(struct proxy *p)
{
	struct proxy_listener	*l;
	struct proxy_conn	*c, *next;

	p->stopping = 1;
	while ((l = SLIST_FIRST(&p->listeners)) != NULL) {
		SLIST_REMOVE_HEAD(&p->listeners, entry);
		if (l->path != NULL)
			unlink(l->path);
		uv_close((uv_handle_t *)&l->h, proxy_listener_closed);
	}
	for (c = TAILQ_FIRST(&p->conns); c != NULL; c = next) {
		next = TAILQ_NEXT(c, entry);
		proxy_conn_close(c);
	}
	if (p->refs == 0)
		proxy_free(p);
}

cJSON *
proxy_json(const struct proxy *p)
{
	cJSON	*o, *s, *a;
	size_t	 i;

	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "port", p->port);
	s = cJSON_AddObjectToObject(o, "stats");
	cJSON_AddNumberToObject(s, "allowed", (double)p->allowed);
	cJSON_AddNumberToObject(s, "denied", (double)p->denied);
	a = cJSON_AddArrayToObject(s, "recentDenied");
	for (i = 0; i < p->nwants; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->wants[i]));
	a = cJSON_AddArrayToObject(s, "reached");
	for (i = 0; i < p->nreached; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(p->reached[i]));
	cJSON_AddNumberToObject(o, "tunnels", p->ntunnels);
	return o;
}
