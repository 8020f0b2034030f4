/*
 * Two-way splice relays.
 *
 * Each way of a pair moves bytes source socket -> pipe -> destination
 * socket with splice(2), driven by one libuv poll handle per socket
 * (level-triggered, asked for what the flows wait on).  The pipe is the
 * only buffer, so a slow reader holds back its writer (at most one pipe's
 * worth in flight).  EOF on one side becomes shutdown(SHUT_WR) on the
 * other; a pair ends when both ways have ended, or at once on an error,
 * with a reset passed on as a reset.
 *
 * Pipes are not tied to a pair: a flow takes one from a small pool of
 * empty pipes when it has bytes to move and puts it back as soon as it is
 * empty again.  An idle pair therefore holds two sockets and no pipe (no
 * descriptors, no kernel buffers beyond the sockets'); only a flow whose
 * destination is full keeps its pipe.  The event loop is single-threaded,
 * so one pool per process does.  Pipes start at the kernel's default
 * size; a few per process grow to 1 MiB for bulk transfers.
 */
#include <sys/queue.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "splice.h"
#include "xmalloc.h"

#define SPLICE_BULK_SIZE	(1024 * 1024)	/* a pipe that filled up */
#define SPLICE_BULK_MAX		4		/* grown pipes per process */
#define SPLICE_POOL_MAX		8		/* empty pipes kept */
#define SPLICE_ROUNDS		16		/* splices per event and way */

enum splice_want {
	WANT_NONE,
	WANT_READ,			/* source readable */
	WANT_WRITE			/* destination writable */
};

struct splice_pipe {
	int			 fd[2];
	size_t			 size;		/* its capacity */
	int			 grown;		/* 1 grown, -1 could not */
	SLIST_ENTRY(splice_pipe) entry;
};

/*
 * One way of a pair: fd[i] -> pipe -> fd[!i] for flow[i].
 */
struct splice_flow {
	struct splice_pipe	*pipe;		/* only while it holds bytes */
	size_t			 inpipe;	/* bytes in the pipe */
	int			 eof;		/* source said EOF */
	int			 done;		/* and destination shut down */
	enum splice_want	 want;
};

struct splice_pair {
	int			 fd[2];
	uv_poll_t		 poll[2];
	int			 events[2];
	struct splice_flow	 flow[2];
	int			 draining;
	int			 keep;		/* draining: the flow that reads */
	int			 closing;
	int			 error;
	int			 failed;	/* setup failed: no done */
	int			 handles;
	splice_activity_cb	 activity;
	splice_done_cb		 done;
	void			*arg;
};

static SLIST_HEAD(, splice_pipe) splice_pool =
    SLIST_HEAD_INITIALIZER(splice_pool);
static int			 splice_npool;
static int			 splice_grown;	/* pipes at SPLICE_BULK_SIZE */

static void	splice_event(uv_poll_t *, int, int);

/* Pipes. */

static void
pipe_discard(struct splice_pipe *p)
{
	close(p->fd[0]);
	close(p->fd[1]);
	if (p->grown == 1)
		splice_grown--;
	free(p);
}

static struct splice_pipe *
pipe_get(void)
{
	struct splice_pipe	*p;
	int			 size;

	if ((p = SLIST_FIRST(&splice_pool)) != NULL) {
		SLIST_REMOVE_HEAD(&splice_pool, entry);
		splice_npool--;
		return p;
	}
	p = xcalloc(1, sizeof *p);
	if (pipe2(p->fd, O_NONBLOCK | O_CLOEXEC) == -1) {
		log_warn("relay pipe");
		free(p);
		return NULL;
	}
	if ((size = fcntl(p->fd[1], F_GETPIPE_SZ)) <= 0)
		size = 65536;
	p->size = size;
	return p;
}

/* An empty pipe goes back to the pool, or away when the pool is full. */
static void
pipe_put(struct splice_pipe *p)
{
	if (splice_npool >= SPLICE_POOL_MAX) {
		pipe_discard(p);
		return;
	}
	SLIST_INSERT_HEAD(&splice_pool, p, entry);
	splice_npool++;
}

/*
 * A splice that filled the pipe is a bulk transfer: grow the pipe, once.
 * Pipe pages count against the user's pipe-user-pages-soft (shared with
 * everything else the user runs, and past it new pipes get two pages), so
 * only a few pipes per process grow.
 */
static void
pipe_grow(struct splice_pipe *p)
{
	int	 size;

	if ((size = fcntl(p->fd[1], F_SETPIPE_SZ, SPLICE_BULK_SIZE)) == -1) {
		p->grown = -1;		/* EPERM past the soft limit */
		return;
	}
	p->size = size;
	p->grown = 1;
	splice_grown++;
}

/* Pairs. */

static void
pair_free(struct splice_pair *sp)
{
	int	 i;

	for (i = 0; i < 2; i++) {
		if (sp->fd[i] != -1)
			close(sp->fd[i]);
		/* A pipe still held has bytes nobody will take: drop it. */
		if (sp->flow[i].pipe != NULL)
			pipe_discard(sp->flow[i].pipe);
	}
	if (!sp->failed && sp->done != NULL)
		sp->done(sp->arg, sp->error);
	free(sp);
}

static void
pair_handle_closed(uv_handle_t *h)
{
	struct splice_pair	*sp = h->data;

	if (--sp->handles == 0)
		pair_free(sp);
}

void
splice_pair_close(struct splice_pair *sp)
{
	int	 i;

	if (sp->closing)
		return;
	sp->closing = 1;
	for (i = 0; i < 2; i++)
		uv_close((uv_handle_t *)&sp->poll[i], pair_handle_closed);
}

/*
 * Close after an error: with a zero linger, so the side still there sees
 * a reset, not an EOF that could pass for the end of a complete answer.
 */
static void
pair_linger(struct splice_pair *sp)
{
	struct linger	 lg = { 1, 0 };
	int		 i;

	for (i = 0; i < 2; i++) {
		if (sp->fd[i] != -1)
			setsockopt(sp->fd[i], SOL_SOCKET, SO_LINGER, &lg,
			    sizeof lg);
	}
}

void
splice_pair_abort(struct splice_pair *sp)
{
	pair_linger(sp);
	sp->error = 1;
	splice_pair_close(sp);
}

/*
 * Move what can be moved one way: empty the pipe into the destination,
 * then refill it from the source, until one of them would block.  Sets
 * *moved when bytes went somewhere.  -1 on an error (reset, broken pipe,
 * no pipe to be had): the pair is then over.
 */
static int
flow_pump(struct splice_pair *sp, int i, int *moved)
{
	struct splice_flow	*f = &sp->flow[i];
	int			 src = sp->fd[i], dst = sp->fd[!i];
	ssize_t			 n;
	int			 rounds;

	if (f->done) {
		f->want = WANT_NONE;
		return 0;
	}
	for (rounds = 0; rounds < SPLICE_ROUNDS; rounds++) {
		while (f->inpipe > 0) {
			n = splice(f->pipe->fd[0], NULL, dst, NULL, f->inpipe,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				f->inpipe -= n;
				*moved = 1;
				continue;
			}
			if (n == -1 && errno == EINTR)
				continue;
			if (n == -1 && errno == EAGAIN) {
				f->want = WANT_WRITE;
				return 0;
			}
			return -1;
		}
		if (f->eof) {
			if (shutdown(dst, SHUT_WR) == -1 && errno != ENOTCONN)
				return -1;
			f->done = 1;
			f->want = WANT_NONE;
			return 0;
		}
		if (sp->draining && i != sp->keep) {
			f->want = WANT_NONE;
			return 0;
		}

		if (f->pipe == NULL && (f->pipe = pipe_get()) == NULL)
			return -1;
		n = splice(src, NULL, f->pipe->fd[1], NULL, SPLICE_BULK_SIZE,
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if (n == 0)
			f->eof = 1;
		else if (n > 0) {
			f->inpipe = n;
			*moved = 1;
			if (f->pipe->grown == 0 && (size_t)n >= f->pipe->size &&
			    splice_grown < SPLICE_BULK_MAX)
				pipe_grow(f->pipe);
		} else if (errno == EAGAIN) {
			f->want = WANT_READ;
			return 0;
		} else if (errno != EINTR)
			return -1;
	}
	/* Fair to the others; level-triggered polling brings us back. */
	f->want = f->inpipe > 0 ? WANT_WRITE : WANT_READ;
	return 0;
}

/*
 * Poll each socket for what its two flows wait on.  A pair whose flows
 * have both ended is closed; while draining, one whose reading flow has
 * ended and whose other way has nothing left to flush.
 */
static void
pair_update(struct splice_pair *sp)
{
	int	 i, ev;

	if (sp->closing)
		return;
	if (sp->flow[0].done && sp->flow[1].done) {
		splice_pair_close(sp);
		return;
	}
	if (sp->draining && sp->flow[sp->keep].done &&
	    sp->flow[!sp->keep].inpipe == 0) {
		splice_pair_close(sp);
		return;
	}
	for (i = 0; i < 2; i++) {
		ev = 0;
		if (sp->flow[i].want == WANT_READ)
			ev |= UV_READABLE;
		if (sp->flow[!i].want == WANT_WRITE)
			ev |= UV_WRITABLE;
		if (ev == sp->events[i])
			continue;
		sp->events[i] = ev;
		if (ev != 0)
			uv_poll_start(&sp->poll[i], ev, splice_event);
		else
			uv_poll_stop(&sp->poll[i]);
	}
}

static void
pair_pump(struct splice_pair *sp)
{
	struct splice_flow	*f;
	int			 i, moved = 0;

	if (sp->closing)
		return;
	for (i = 0; i < 2; i++) {
		f = &sp->flow[i];
		if (flow_pump(sp, i, &moved) == -1) {
			splice_pair_abort(sp);
			return;
		}
		/* Empty again: the pipe serves whichever flow needs one. */
		if (f->pipe != NULL && f->inpipe == 0) {
			pipe_put(f->pipe);
			f->pipe = NULL;
		}
	}
	if (moved && sp->activity != NULL)
		sp->activity(sp->arg);
	pair_update(sp);
}

static void
splice_event(uv_poll_t *p, int status, int events)
{
	struct splice_pair	*sp = p->data;

	if (sp->closing)
		return;
	if (status < 0)
		splice_pair_abort(sp);	/* POLLERR: reset or such */
	else
		pair_pump(sp);
}

struct splice_pair *
splice_pair_new(uv_loop_t *loop, int fd0, int fd1,
    splice_activity_cb activity, splice_done_cb done, void *arg)
{
	struct splice_pair	*sp;
	int			 i, error;

	sp = xcalloc(1, sizeof *sp);
	sp->fd[0] = fd0;
	sp->fd[1] = fd1;
	sp->activity = activity;
	sp->done = done;
	sp->arg = arg;
	for (i = 0; i < 2; i++) {
		if ((error = uv_poll_init(loop, &sp->poll[i], sp->fd[i]))
		    != 0) {
			log_warnx("poll: %s", uv_strerror(error));
			sp->failed = 1;
			pair_linger(sp);
			if (i == 0) {
				pair_free(sp);	/* no handle yet */
				return NULL;
			}
			/* Freed from the loop, once that handle has closed. */
			sp->closing = 1;
			sp->handles = 1;
			uv_close((uv_handle_t *)&sp->poll[0],
			    pair_handle_closed);
			return NULL;
		}
		sp->poll[i].data = sp;
		sp->flow[i].want = WANT_READ;
	}
	sp->handles = 2;
	pair_update(sp);
	return sp;
}

void
splice_pair_drain(struct splice_pair *sp, int keep)
{
	if (sp->closing)
		return;
	sp->draining = 1;
	sp->keep = keep;
	pair_pump(sp);
}
