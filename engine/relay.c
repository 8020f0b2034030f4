/*
 * Relays: accept on a unix socket, dial 127.0.0.1:port, copy both ways.
 * Reads stop while the other side's write queue is above a high-water
 * mark and resume when it drains; EOF on one side is passed on as a
 * shutdown of the other, and the pair closes when both are done.
 */
#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "relay.h"
#include "xmalloc.h"

#define RELAY_READ_SIZE		65536
#define RELAY_HIGH_WATER	(1024 * 1024)

struct relay_conn;

struct relay_listener {
	uv_pipe_t			 pipe;
	uv_loop_t			*loop;
	char				*path;
	int				 port;
	int				 refs;	/* itself + connections */
	LIST_HEAD(, relay_conn)		 conns;
};

/*
 * One relayed pair: a is the accepted side, b the dialled one.  Freed
 * when both handles have closed and no request is in flight.
 */
struct relay_conn {
	struct relay_listener		*l;
	uv_pipe_t			 a;
	uv_tcp_t			 b;
	uv_connect_t			 connect;
	int				 refs;
	int				 connected;
	int				 closing;
	int				 eof_a, eof_b;
	LIST_ENTRY(relay_conn)		 entry;
};

struct relay_write {
	uv_write_t	 req;
	char		*buf;
};

static void	relay_conn_close(struct relay_conn *);

static void
relay_listener_release(struct relay_listener *l)
{
	if (--l->refs > 0)
		return;
	free(l->path);
	free(l);
}

static void
relay_unref(struct relay_conn *c)
{
	struct relay_listener	*l = c->l;

	if (--c->refs > 0)
		return;
	LIST_REMOVE(c, entry);
	free(c);
	relay_listener_release(l);
}

static void
relay_closed(uv_handle_t *h)
{
	relay_unref(h->data);
}

static void
relay_conn_close(struct relay_conn *c)
{
	if (c->closing)
		return;
	c->closing = 1;
	uv_close((uv_handle_t *)&c->a, relay_closed);
	uv_close((uv_handle_t *)&c->b, relay_closed);
}

static void
relay_alloc(uv_handle_t *h, size_t hint, uv_buf_t *buf)
{
	buf->base = xmalloc(RELAY_READ_SIZE);
	buf->len = RELAY_READ_SIZE;
}

static uv_stream_t *
relay_peer(struct relay_conn *c, uv_stream_t *s)
{
	return s == (uv_stream_t *)&c->a ? (uv_stream_t *)&c->b :
	    (uv_stream_t *)&c->a;
}

static void	relay_read(uv_stream_t *, ssize_t, const uv_buf_t *);

static void
relay_write_done(uv_write_t *req, int status)
{
	struct relay_write	*w = (struct relay_write *)req;
	uv_stream_t		*dst = req->handle, *src;
	struct relay_conn	*c = dst->data;

	free(w->buf);
	free(w);
	if (status < 0)
		relay_conn_close(c);
	else if (!c->closing &&
	    uv_stream_get_write_queue_size(dst) < RELAY_HIGH_WATER) {
		/* Drained: the side feeding this one may read again. */
		src = relay_peer(c, dst);
		if (!(src == (uv_stream_t *)&c->a ? c->eof_a : c->eof_b))
			uv_read_start(src, relay_alloc, relay_read);
	}
	relay_unref(c);
}

static void
relay_half_closed(uv_shutdown_t *req, int status)
{
	free(req);
}

static void
relay_read(uv_stream_t *s, ssize_t nread, const uv_buf_t *buf)
{
	struct relay_conn	*c = s->data;
	uv_stream_t		*dst = relay_peer(c, s);
	struct relay_write	*w;
	uv_shutdown_t		*sreq;
	uv_buf_t		 b;

	if (nread == 0) {
		free(buf->base);
		return;
	}
	if (nread < 0) {
		free(buf->base);
		uv_read_stop(s);
		if (s == (uv_stream_t *)&c->a)
			c->eof_a = 1;
		else
			c->eof_b = 1;
		if (nread != UV_EOF || (c->eof_a && c->eof_b)) {
			relay_conn_close(c);
			return;
		}
		sreq = xcalloc(1, sizeof *sreq);
		if (uv_shutdown(sreq, dst, relay_half_closed) != 0)
			free(sreq);
		return;
	}
	w = xcalloc(1, sizeof *w);
	w->buf = buf->base;
	b = uv_buf_init(buf->base, (unsigned int)nread);
	if (uv_write(&w->req, dst, &b, 1, relay_write_done) != 0) {
		free(w->buf);
		free(w);
		relay_conn_close(c);
		return;
	}
	c->refs++;
	if (uv_stream_get_write_queue_size(dst) >= RELAY_HIGH_WATER)
		uv_read_stop(s);
}

static void
relay_connected(uv_connect_t *req, int status)
{
	struct relay_conn	*c = req->data;

	if (status < 0 || c->closing) {
		relay_conn_close(c);
		relay_unref(c);
		return;
	}
	c->connected = 1;
	uv_read_start((uv_stream_t *)&c->a, relay_alloc, relay_read);
	uv_read_start((uv_stream_t *)&c->b, relay_alloc, relay_read);
	relay_unref(c);
}

static void
relay_accept(uv_stream_t *ls, int status)
{
	struct relay_listener	*l = ls->data;
	struct relay_conn	*c;
	struct sockaddr_in	 sin;

	if (status < 0)
		return;
	c = xcalloc(1, sizeof *c);
	c->l = l;
	uv_pipe_init(l->loop, &c->a, 0);
	uv_tcp_init(l->loop, &c->b);
	c->a.data = c->b.data = c;
	c->refs = 2;
	l->refs++;
	LIST_INSERT_HEAD(&l->conns, c, entry);
	if (uv_accept(ls, (uv_stream_t *)&c->a) != 0) {
		relay_conn_close(c);
		return;
	}
	uv_ip4_addr("127.0.0.1", l->port, &sin);
	c->connect.data = c;
	if (uv_tcp_connect(&c->connect, &c->b, (struct sockaddr *)&sin,
	    relay_connected) != 0) {
		relay_conn_close(c);
		return;
	}
	c->refs++;
}

struct relay_listener *
relay_unix_to_tcp(uv_loop_t *loop, const char *path, int port, char *err,
    size_t errlen)
{
	struct relay_listener	*l;
	int			 rv;

	l = xcalloc(1, sizeof *l);
	l->loop = loop;
	l->port = port;
	l->refs = 1;
	LIST_INIT(&l->conns);
	uv_pipe_init(loop, &l->pipe, 0);
	l->pipe.data = l;
	unlink(path);
	if ((rv = uv_pipe_bind(&l->pipe, path)) != 0 ||
	    (rv = uv_listen((uv_stream_t *)&l->pipe, 128,
	    relay_accept)) != 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", path,
		    uv_strerror(rv));
		relay_close(l);
		return NULL;
	}
	l->path = xstrdup(path);
	return l;
}

static void
relay_listener_closed(uv_handle_t *h)
{
	relay_listener_release(h->data);
}

void
relay_close(struct relay_listener *l)
{
	struct relay_conn	*c;

	if (l->path != NULL)
		unlink(l->path);
	LIST_FOREACH(c, &l->conns, entry)
		relay_conn_close(c);
	uv_close((uv_handle_t *)&l->pipe, relay_listener_closed);
}
