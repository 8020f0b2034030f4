/*
 * spacebox-shim: the app's parent inside the sandbox.
 *
 *   spacebox-shim [--lo-up] [--inbound FD:PORT]... [--outbound PORT:PATH]...
 *       -- CMD [ARG...]
 *
 * bwrap starts it as PID 1 of a new PID namespace (--as-pid-1) and, in
 * network modes off and hosts, of a new network namespace that has only
 * loopback.  It does three things:
 *
 *   bridges   --inbound: FD is a listening TCP socket the engine bound on
 *             the host's 127.0.0.1 (a socket keeps the namespace it was
 *             made in); each connection accepted on it is relayed to
 *             127.0.0.1:PORT (or [::1]:PORT) in this namespace, where the
 *             app listens, retrying for up to 2 s while it does not yet.
 *             --outbound: listen on 127.0.0.1:PORT here and relay each
 *             connection to the unix socket PATH, where the engine listens
 *             on the host side (unix sockets are reached by path).
 *   init      CMD runs in its own process group, with the shim's
 *             environment, stdin, stdout and stderr and no other
 *             descriptor; every child is reaped;
 *             SIGTERM, SIGINT, SIGHUP (and SIGQUIT, SIGUSR1, SIGUSR2) are
 *             forwarded to that group, since PID 1 otherwise ignores them.
 *   status    when CMD exits, the listeners close, what is left of its
 *             group is killed, and the shim exits with CMD's status
 *             (128+N if it was killed by signal N).
 *
 * Relays use splice(2) (splice.c): each direction moves bytes socket ->
 * pipe -> socket without copying them through user space, driven by libuv
 * poll handles; one event loop, no process or thread per connection.  The
 * pipe is the only buffer, so a slow reader holds back its writer (at most
 * one pipe's worth in flight).  EOF on one side becomes shutdown(SHUT_WR)
 * on the other; a relay ends when both directions have ended, or at once
 * on an error, with a reset passed on as a reset.  A direction holds a
 * pipe only while bytes sit in it (empty ones are pooled); pipes start at
 * the kernel's default size; a few per shim grow to 1 MiB for bulk
 * transfers.
 *
 * Setup failures (bad arguments, cannot listen, cannot exec CMD) print one
 * line on stderr and exit 127.
 */
#include <sys/prctl.h>
#include <sys/ioctl.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <uv.h>

#include "log.h"
#include "splice.h"
#include "xmalloc.h"

#define SHIM_EXIT_SETUP		127
#define ACCEPT_BURST		32		/* accepts per event */
#define ACCEPT_PAUSE_MS		100		/* out of descriptors */
#define CONNECT_BUDGET_MS	2000		/* app not listening yet */
#define CONNECT_FIRST_MS	10
#define CONNECT_MAX_MS		200
#define DRAIN_MS		2000		/* flushing after CMD exits */

/*
 * One listening socket: a host fd handed down (inbound) or 127.0.0.1:PORT
 * in this namespace (outbound).
 */
struct listener {
	uv_poll_t		 poll;
	uv_timer_t		 pause;
	int			 inbound;
	int			 fd;
	int			 port;		/* inbound: app's; outbound: ours */
	char			*path;		/* outbound: engine's unix socket */
	int			 handles;
	TAILQ_ENTRY(listener)	 entry;
};

#define RELAY_CLIENT	0		/* accepted */
#define RELAY_UPSTREAM	1		/* app's port or engine's socket */

/*
 * One relayed connection: connecting (retries on a timer), then relayed
 * by a splice pair, which owns both sockets from then on.  Freed when its
 * last handle has closed and its pair is over.
 */
struct relay {
	struct listener		*listener;
	int			 fd[2];		/* until the pair has them */
	uv_poll_t		 poll;		/* upstream, while connecting */
	int			 pollopen;
	struct splice_pair	*pair;
	uv_timer_t		 timer;		/* connect retries */
	uint64_t		 started;
	unsigned int		 tries;		/* connects so far */
	unsigned int		 delay;		/* backoff between rounds */
	unsigned int		 next;		/* wait before the next try */
	int			 connected;
	int			 closing;
	int			 handles;	/* open handles + the pair */
	TAILQ_ENTRY(relay)	 entry;
};

static uv_loop_t		 shim_loop;
static TAILQ_HEAD(, listener)	 listeners = TAILQ_HEAD_INITIALIZER(listeners);
static TAILQ_HEAD(, relay)	 relays = TAILQ_HEAD_INITIALIZER(relays);

static const int		 shim_forward[] = {
	SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2
};
#define NFORWARD	(sizeof shim_forward / sizeof shim_forward[0])
static uv_signal_t		 shim_sigs[NFORWARD];
static uv_signal_t		 shim_sigchld;
static uv_timer_t		 shim_drain;
static int			 shim_draining;
static struct rlimit		 shim_nofile;	/* as inherited, for CMD */
static int			 shim_nofile_raised;

static pid_t			 child_pid = -1;
static pid_t			 child_pgid = -1;
static int			 shim_stopping;	/* a stop signal came */
static uv_timer_t		 shim_linger;
static int			 child_status;

static void	listener_accept(uv_poll_t *, int, int);
static void	relay_abort(struct relay *);
static void	relay_close(struct relay *);
static void	relay_connect(struct relay *);
static void	relay_retry(uv_timer_t *);
static void	relay_event(uv_poll_t *, int, int);
static void	shim_maybe_done(void);

static void __attribute__((noreturn))
usage(const char *why)
{
	log_warnx("%s; usage: spacebox-shim [--lo-up] [--inbound FD:PORT]... "
	    "[--outbound PORT:PATH]... -- CMD [ARG...]", why);
	exit(SHIM_EXIT_SETUP);
}

static void __attribute__((noreturn, format(printf, 1, 2)))
setup_fail(const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) == -1)
		msg = NULL;
	va_end(ap);
	log_warnx("%s", msg != NULL ? msg : "setup failed");
	free(msg);
	exit(SHIM_EXIT_SETUP);
}

/*
 * A decimal number in [min, max], the whole string; -1 if it is not.
 */
static long
parse_number(const char *s, size_t len, long min, long max)
{
	long	 v = 0;
	size_t	 i;

	if (len == 0 || len > 10)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v < min || v > max)
		return -1;
	return v;
}

/*
 * --inbound FD:PORT.  FD must be an open, listening TCP socket.
 */
static void
add_inbound(const char *arg)
{
	struct listener	*l;
	const char	*colon;
	long		 fd, port;
	int		 v;
	socklen_t	 vlen;

	if ((colon = strchr(arg, ':')) == NULL ||
	    (fd = parse_number(arg, colon - arg, 0, INT_MAX)) == -1 ||
	    (port = parse_number(colon + 1, strlen(colon + 1), 1, 65535)) == -1)
		setup_fail("--inbound wants FD:PORT, got \"%s\"", arg);

	vlen = sizeof v;
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &vlen) == -1)
		setup_fail("--inbound %s: fd %ld: %s", arg, fd, strerror(errno));
	if (v != AF_INET && v != AF_INET6)
		setup_fail("--inbound %s: fd %ld is not an IP socket", arg, fd);
	vlen = sizeof v;
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &vlen) == -1 ||
	    v != SOCK_STREAM)
		setup_fail("--inbound %s: fd %ld is not a TCP socket", arg, fd);
	vlen = sizeof v;
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &vlen) == -1 ||
	    v == 0)
		setup_fail("--inbound %s: fd %ld is not listening", arg, fd);
	TAILQ_FOREACH(l, &listeners, entry) {
		if (l->inbound && l->fd == fd)
			setup_fail("--inbound %s: fd %ld given twice", arg, fd);
	}

	l = xcalloc(1, sizeof *l);
	l->inbound = 1;
	l->fd = fd;
	l->port = port;
	TAILQ_INSERT_TAIL(&listeners, l, entry);
}

/*
 * --outbound PORT:PATH.  PATH is only connected to later; it has to fit a
 * sockaddr_un.
 */
static void
add_outbound(const char *arg)
{
	struct listener		*l;
	struct sockaddr_un	 sun;
	const char		*colon;
	long			 port;

	if ((colon = strchr(arg, ':')) == NULL ||
	    (port = parse_number(arg, colon - arg, 1, 65535)) == -1 ||
	    colon[1] == '\0')
		setup_fail("--outbound wants PORT:PATH, got \"%s\"", arg);
	if (strlen(colon + 1) >= sizeof sun.sun_path)
		setup_fail("--outbound %s: socket path too long", arg);
	TAILQ_FOREACH(l, &listeners, entry) {
		if (!l->inbound && l->port == port)
			setup_fail("--outbound %s: port %ld given twice", arg,
			    port);
	}

	l = xcalloc(1, sizeof *l);
	l->fd = -1;
	l->port = port;
	l->path = xstrdup(colon + 1);
	TAILQ_INSERT_TAIL(&listeners, l, entry);
}

/*
 * bwrap brings loopback up itself when it creates the network namespace
 * (while it still holds CAP_NET_ADMIN there); the shim and the app hold no
 * capabilities.  So this normally only checks; it tries SIOCSIFFLAGS in
 * case the shim was started some other way, with the capability.
 */
static void
loopback_up(void)
{
	struct ifreq	 ifr;
	int		 s;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		setup_fail("--lo-up: socket: %s", strerror(errno));
	memset(&ifr, 0, sizeof ifr);
	memcpy(ifr.ifr_name, "lo", sizeof "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == -1)
		setup_fail("--lo-up: SIOCGIFFLAGS lo: %s", strerror(errno));
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) == -1)
			setup_fail("--lo-up: loopback is down and cannot be "
			    "brought up: %s", strerror(errno));
	}
	close(s);
}

/* Relays. */

static void
relay_free(struct relay *r)
{
	int	 i;

	for (i = 0; i < 2; i++) {
		if (r->fd[i] != -1)
			close(r->fd[i]);
	}
	TAILQ_REMOVE(&relays, r, entry);
	free(r);
	shim_maybe_done();
}

/*
 * Every handle of a relay closes here (its splice pair ends in
 * relay_done).  The upstream poll handle, used while connecting, also
 * closes alone: after a failed connect its socket goes and, unless the
 * relay is closing, the next attempt is timed; after a connect the socket
 * has gone on to the splice pair.
 */
static void
relay_handle_closed(uv_handle_t *h)
{
	struct relay	*r = h->data;

	if (h == (uv_handle_t *)&r->poll) {
		r->pollopen = 0;
		if (!r->connected) {
			close(r->fd[RELAY_UPSTREAM]);
			r->fd[RELAY_UPSTREAM] = -1;
			if (!r->closing)
				uv_timer_start(&r->timer, relay_retry, r->next,
				    0);
		}
	}
	if (--r->handles == 0)
		relay_free(r);
}

static void
relay_close(struct relay *r)
{
	if (r->closing)
		return;
	r->closing = 1;
	uv_close((uv_handle_t *)&r->timer, relay_handle_closed);
	if (r->pollopen && !uv_is_closing((uv_handle_t *)&r->poll))
		uv_close((uv_handle_t *)&r->poll, relay_handle_closed);
	if (r->pair != NULL)
		splice_pair_close(r->pair);
}

/*
 * Close after an error: with a zero linger, so the side still there sees
 * a reset, not an EOF that could pass for the end of a complete answer.
 */
static void
relay_abort(struct relay *r)
{
	struct linger	 lg = { 1, 0 };
	int		 i;

	if (r->pair != NULL)
		splice_pair_abort(r->pair);
	for (i = 0; i < 2; i++) {
		if (r->fd[i] != -1)
			setsockopt(r->fd[i], SOL_SOCKET, SO_LINGER, &lg,
			    sizeof lg);
	}
	relay_close(r);
}

/* The splice pair is over: both ways ended, an error, or we closed it. */
static void
relay_done(void *arg, int error)
{
	struct relay	*r = arg;

	r->pair = NULL;
	relay_close(r);
	if (--r->handles == 0)
		relay_free(r);
}

/*
 * The flow that reads from the app's side of the relay: the upstream for
 * inbound, the accepted client for outbound.  After CMD has exited only
 * it still reads, so what the app wrote before it went still arrives;
 * the host's side has nobody left to talk to.
 */
static int
relay_app_flow(struct relay *r)
{
	return r->listener->inbound ? RELAY_UPSTREAM : RELAY_CLIENT;
}

static void
relay_retry(uv_timer_t *t)
{
	relay_connect(t->data);
}

/* Connected: the splice pair takes both sockets over. */
static void
relay_start(struct relay *r)
{
	int	 one = 1;

	setsockopt(r->fd[RELAY_CLIENT], IPPROTO_TCP, TCP_NODELAY, &one,
	    sizeof one);
	if (r->listener->inbound)
		setsockopt(r->fd[RELAY_UPSTREAM], IPPROTO_TCP, TCP_NODELAY,
		    &one, sizeof one);
	r->connected = 1;
	if (r->pollopen && !uv_is_closing((uv_handle_t *)&r->poll))
		uv_close((uv_handle_t *)&r->poll, relay_handle_closed);
	r->pair = splice_pair_new(&shim_loop, r->fd[RELAY_CLIENT],
	    r->fd[RELAY_UPSTREAM], NULL, relay_done, r);
	r->fd[RELAY_CLIENT] = r->fd[RELAY_UPSTREAM] = -1;
	if (r->pair == NULL) {
		relay_close(r);
		return;
	}
	r->handles++;
	if (shim_draining)
		splice_pair_drain(r->pair, relay_app_flow(r));
}

/*
 * The upstream could not be reached.  Inbound, the app may not be
 * listening yet: try again for a while, 127.0.0.1 then at once ::1 (an
 * app that listens on "localhost" may have got either), then wait a
 * little longer each round.  Outbound, a full backlog on the engine's
 * socket (EAGAIN) is worth another try too.
 */
static void
relay_connect_failed(struct relay *r, int error)
{
	struct listener	*l = r->listener;
	uint64_t	 elapsed = uv_now(&shim_loop) - r->started;

	if (l->inbound && r->tries % 2 == 1)
		r->next = 0;
	else {
		if (r->delay == 0)
			r->delay = CONNECT_FIRST_MS;
		else if ((r->delay *= 2) > CONNECT_MAX_MS)
			r->delay = CONNECT_MAX_MS;
		r->next = r->delay;
	}
	if (!shim_draining && (l->inbound || error == EAGAIN) &&
	    elapsed + r->next < CONNECT_BUDGET_MS) {
		if (r->pollopen)
			uv_close((uv_handle_t *)&r->poll, relay_handle_closed);
		else {
			if (r->fd[RELAY_UPSTREAM] != -1)
				close(r->fd[RELAY_UPSTREAM]);
			r->fd[RELAY_UPSTREAM] = -1;
			uv_timer_start(&r->timer, relay_retry, r->next, 0);
		}
		return;
	}
	if (l->inbound)
		log_warnx("inbound connection to port %d (127.0.0.1, ::1): %s",
		    l->port, strerror(error));
	else
		log_warnx("outbound 127.0.0.1:%d to %s: %s", l->port, l->path,
		    strerror(error));
	relay_abort(r);
}

/* Connecting: the upstream socket became writable or failed. */
static void
relay_event(uv_poll_t *p, int status, int events)
{
	struct relay	*r = p->data;
	int		 error = 0;
	socklen_t	 len = sizeof error;

	if (r->closing || r->connected)
		return;
	if (getsockopt(r->fd[RELAY_UPSTREAM], SOL_SOCKET, SO_ERROR, &error,
	    &len) == -1)
		error = errno;
	if (error == 0 && status < 0)
		error = ECONNREFUSED;
	if (error != 0)
		relay_connect_failed(r, error);
	else
		relay_start(r);
}

/*
 * Dial the upstream, without blocking: the app's port (inbound) or the
 * engine's unix socket (outbound).
 */
static void
relay_connect(struct relay *r)
{
	struct listener		*l = r->listener;
	struct sockaddr_in	 sin;
	struct sockaddr_in6	 sin6;
	struct sockaddr_un	 sun;
	struct sockaddr		*sa;
	socklen_t		 salen;
	int			 s, error, pending;

	if (r->closing)
		return;
	if (shim_draining) {
		relay_abort(r);
		return;
	}
	if (l->inbound && r->tries++ % 2 == 1) {
		memset(&sin6, 0, sizeof sin6);
		sin6.sin6_family = AF_INET6;
		sin6.sin6_port = htons(l->port);
		sin6.sin6_addr = in6addr_loopback;
		sa = (struct sockaddr *)&sin6;
		salen = sizeof sin6;
	} else if (l->inbound) {
		memset(&sin, 0, sizeof sin);
		sin.sin_family = AF_INET;
		sin.sin_port = htons(l->port);
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sa = (struct sockaddr *)&sin;
		salen = sizeof sin;
	} else {
		memset(&sun, 0, sizeof sun);
		sun.sun_family = AF_UNIX;
		memcpy(sun.sun_path, l->path, strlen(l->path) + 1);
		sa = (struct sockaddr *)&sun;
		salen = sizeof sun;
	}
	s = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (s == -1) {
		relay_connect_failed(r, errno);
		return;
	}
	r->fd[RELAY_UPSTREAM] = s;
	if ((error = connect(s, sa, salen)) == -1 && errno != EINPROGRESS &&
	    errno != EINTR) {
		relay_connect_failed(r, errno);
		return;
	}
	pending = error == -1;
	if ((error = uv_poll_init(&shim_loop, &r->poll, s)) != 0) {
		log_warnx("poll: %s", uv_strerror(error));
		relay_abort(r);
		return;
	}
	r->poll.data = r;
	r->pollopen = 1;
	r->handles++;
	if (!pending)
		relay_start(r);
	else
		uv_poll_start(&r->poll, UV_WRITABLE, relay_event);
}

/* Listeners. */

static void
relay_new(struct listener *l, int fd)
{
	struct relay	*r;

	r = xcalloc(1, sizeof *r);
	r->listener = l;
	r->started = uv_now(&shim_loop);
	r->fd[RELAY_CLIENT] = fd;
	r->fd[RELAY_UPSTREAM] = -1;
	TAILQ_INSERT_TAIL(&relays, r, entry);

	uv_timer_init(&shim_loop, &r->timer);
	r->timer.data = r;
	r->handles++;
	relay_connect(r);
}

static void
listener_resume(uv_timer_t *t)
{
	struct listener	*l = t->data;

	uv_poll_start(&l->poll, UV_READABLE, listener_accept);
}

static void
listener_accept(uv_poll_t *p, int status, int events)
{
	struct listener	*l = p->data;
	int		 i, fd;

	if (status < 0) {
		log_warnx("listener %s %d: %s", l->inbound ? "fd" : "port",
		    l->inbound ? l->fd : l->port, uv_strerror(status));
		return;
	}
	for (i = 0; i < ACCEPT_BURST && !shim_draining; i++) {
		fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd != -1) {
			relay_new(l, fd);
			continue;
		}
		switch (errno) {
		case EAGAIN:
			return;
		case EINTR:
		case ECONNABORTED:
		case EPROTO:
			continue;
		case EMFILE:
		case ENFILE:
		case ENOBUFS:
		case ENOMEM:
			/* Level-triggered: do not spin, wait for some to go. */
			log_warn("accept on %s %d", l->inbound ? "fd" : "port",
			    l->inbound ? l->fd : l->port);
			uv_poll_stop(&l->poll);
			uv_timer_start(&l->pause, listener_resume,
			    ACCEPT_PAUSE_MS, 0);
			return;
		default:
			log_warn("accept on %s %d", l->inbound ? "fd" : "port",
			    l->inbound ? l->fd : l->port);
			return;
		}
	}
}

static void
listener_closed(uv_handle_t *h)
{
	struct listener	*l = h->data;

	/* Relays still refer to it: freed only when the loop is over. */
	if (--l->handles == 0)
		close(l->fd);
}

/*
 * Inbound: take over the inherited socket (the app must not inherit it
 * in turn).  Outbound: listen on 127.0.0.1:PORT here.
 */
static void
listeners_open(void)
{
	struct listener		*l;
	struct sockaddr_in	 sin;
	int			 error, one = 1;

	TAILQ_FOREACH(l, &listeners, entry) {
		if (l->inbound) {
			if (fcntl(l->fd, F_SETFD, FD_CLOEXEC) == -1)
				setup_fail("--inbound fd %d: %s", l->fd,
				    strerror(errno));
		} else {
			l->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
			    SOCK_CLOEXEC, 0);
			if (l->fd == -1)
				setup_fail("--outbound: socket: %s",
				    strerror(errno));
			setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one,
			    sizeof one);
			memset(&sin, 0, sizeof sin);
			sin.sin_family = AF_INET;
			sin.sin_port = htons(l->port);
			sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			if (bind(l->fd, (struct sockaddr *)&sin,
			    sizeof sin) == -1 || listen(l->fd, SOMAXCONN) == -1)
				setup_fail("--outbound: cannot listen on "
				    "127.0.0.1:%d: %s", l->port,
				    strerror(errno));
		}
		if ((error = uv_poll_init(&shim_loop, &l->poll, l->fd)) != 0)
			setup_fail("%s %d: %s", l->inbound ? "--inbound fd" :
			    "--outbound port", l->inbound ? l->fd : l->port,
			    uv_strerror(error));
		l->poll.data = l;
		uv_timer_init(&shim_loop, &l->pause);
		l->pause.data = l;
		l->handles = 2;
		uv_poll_start(&l->poll, UV_READABLE, listener_accept);
	}
}

/* Draining and exit. */

static void
drain_expired(uv_timer_t *t)
{
	struct relay	*r, *next;

	for (r = TAILQ_FIRST(&relays); r != NULL; r = next) {
		next = TAILQ_NEXT(r, entry);
		relay_abort(r);
	}
}

static void
shim_maybe_done(void)
{
	if (shim_draining && TAILQ_EMPTY(&relays) &&
	    !uv_is_closing((uv_handle_t *)&shim_drain))
		uv_close((uv_handle_t *)&shim_drain, NULL);
}

/*
 * CMD has exited: stop accepting, kill what is left of its group, let the
 * relays pass on what the app wrote until its sockets say EOF (for a
 * bounded time), and let the loop end.
 */
static void
shim_drain_start(void)
{
	struct listener	*l;
	struct relay	*r, *next;
	size_t		 i;

	shim_draining = 1;
	if (child_pgid > 0)
		kill(-child_pgid, SIGKILL);

	TAILQ_FOREACH(l, &listeners, entry) {
		uv_close((uv_handle_t *)&l->poll, listener_closed);
		uv_close((uv_handle_t *)&l->pause, listener_closed);
	}
	for (i = 0; i < NFORWARD; i++)
		uv_close((uv_handle_t *)&shim_sigs[i], NULL);
	uv_close((uv_handle_t *)&shim_sigchld, NULL);

	uv_timer_init(&shim_loop, &shim_drain);
	uv_timer_start(&shim_drain, drain_expired, DRAIN_MS, 0);
	for (r = TAILQ_FIRST(&relays); r != NULL; r = next) {
		next = TAILQ_NEXT(r, entry);
		if (r->closing)
			continue;
		if (r->pair != NULL)
			splice_pair_drain(r->pair, relay_app_flow(r));
		else
			relay_close(r);	/* still connecting */
	}
	shim_maybe_done();
}

/* The child and signals. */

static void
sig_forward(uv_signal_t *h, int signum)
{
	if (signum == SIGTERM || signum == SIGINT || signum == SIGHUP)
		shim_stopping = 1;
	if (child_pgid > 0 && kill(-child_pgid, signum) == 0)
		return;
	if (child_pid != -1)
		kill(child_pid, signum);
}

/*
 * While stopping, CMD (often /bin/sh -c, which dies at once) may exit
 * before the app it started has finished its own TERM cleanup: wait for
 * the whole group to be gone.  The engine's grace timer bounds this with
 * a SIGKILL to us, which ends the PID namespace.
 */
static void
linger_tick(uv_timer_t *t)
{
	int	status;

	/* Zombies still count as members: reap before looking. */
	while (waitpid(-1, &status, WNOHANG) > 0)
		;
	if (child_pgid > 0 && kill(-child_pgid, 0) == 0)
		return;
	uv_timer_stop(t);
	uv_close((uv_handle_t *)t, NULL);
	shim_drain_start();
}

static void
sig_child(uv_signal_t *h, int signum)
{
	pid_t	 pid;
	int	 status;

	for (;;) {
		pid = waitpid(-1, &status, WNOHANG);
		if (pid == -1 && errno == EINTR)
			continue;
		if (pid <= 0)
			break;
		if (pid != child_pid)
			continue;
		if (WIFEXITED(status))
			child_status = WEXITSTATUS(status);
		else if (WIFSIGNALED(status))
			child_status = 128 + WTERMSIG(status);
		else
			continue;
		child_pid = -1;
		if (shim_stopping && child_pgid > 0 &&
		    kill(-child_pgid, 0) == 0) {
			uv_timer_init(&shim_loop, &shim_linger);
			uv_timer_start(&shim_linger, linger_tick, 50, 50);
		} else
			shim_drain_start();
		/* Go on: signals coalesce, other children may be waiting. */
	}
}

static void
signals_start(void)
{
	size_t	 i;

	signal(SIGPIPE, SIG_IGN);
	uv_signal_init(&shim_loop, &shim_sigchld);
	if (uv_signal_start(&shim_sigchld, sig_child, SIGCHLD) != 0)
		setup_fail("cannot catch SIGCHLD");
	for (i = 0; i < NFORWARD; i++) {
		uv_signal_init(&shim_loop, &shim_sigs[i]);
		if (uv_signal_start(&shim_sigs[i], sig_forward,
		    shim_forward[i]) != 0)
			setup_fail("cannot catch signal %d", shim_forward[i]);
	}
}

/*
 * In the child between fork and exec: own process group, default signal
 * dispositions and an empty mask, only stdin, stdout and stderr passed on.
 */
static void __attribute__((noreturn))
child_exec(char **argv, int errfd)
{
	sigset_t	 none;
	size_t		 i;
	int		 fd, error, max;

	setpgid(0, 0);
	for (i = 0; i < NFORWARD; i++)
		signal(shim_forward[i], SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (shim_nofile_raised)
		setrlimit(RLIMIT_NOFILE, &shim_nofile);

	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) == -1) {
		max = sysconf(_SC_OPEN_MAX);
		if (max < 0 || max > 65536)
			max = 65536;
		for (fd = 3; fd < max; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	execvp(argv[0], argv);

	error = errno;
	while (write(errfd, &error, sizeof error) == -1 && errno == EINTR)
		;
	_exit(SHIM_EXIT_SETUP);
}

static void
child_start(char **argv)
{
	sigset_t	 all, old;
	int		 p[2], error;
	ssize_t		 n;

	if (pipe2(p, O_CLOEXEC) == -1)
		setup_fail("pipe: %s", strerror(errno));

	/* No libuv signal handler may run in the child before exec. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	switch (child_pid = fork()) {
	case -1:
		setup_fail("fork: %s", strerror(errno));
	case 0:
		close(p[0]);
		child_exec(argv, p[1]);
	}
	setpgid(child_pid, child_pid);	/* also in the child: no race */
	child_pgid = child_pid;
	sigprocmask(SIG_SETMASK, &old, NULL);

	close(p[1]);
	do
		n = read(p[0], &error, sizeof error);
	while (n == -1 && errno == EINTR);
	close(p[0]);
	if (n == sizeof error) {
		while (waitpid(child_pid, NULL, 0) == -1 && errno == EINTR)
			;
		setup_fail("cannot exec %s: %s", argv[0], strerror(error));
	}
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "lo-up",	no_argument,		NULL, 'l' },
		{ "inbound",	required_argument,	NULL, 'i' },
		{ "outbound",	required_argument,	NULL, 'o' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	struct listener	*l;
	char		*why;
	int		 ch, lo_up = 0, pdeath = 0;

	log_init("spacebox-shim", 0, NULL);
	/*
	 * Outside a PID namespace (an app without the sandbox) the app's
	 * orphans come to us, not to init, so they are reaped and waited
	 * for here too.
	 */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	/*
	 * If the engine dies (even by SIGKILL), stop the app as a stop
	 * would: TERM to its group, then exit once it is gone.  In a
	 * sandbox bwrap's --die-with-parent already set a SIGKILL here,
	 * which must stay.
	 */
	if (prctl(PR_GET_PDEATHSIG, &pdeath) == 0 && pdeath == 0)
		prctl(PR_SET_PDEATHSIG, SIGTERM);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		switch (ch) {
		case 'l':
			lo_up = 1;
			break;
		case 'i':
			add_inbound(optarg);
			break;
		case 'o':
			add_outbound(optarg);
			break;
		case 'h':
			usage("help");
		default:
			if (xasprintf(&why, "bad option or missing argument: %s",
			    argv[optind - 1]) == -1)
				why = NULL;
			usage(why != NULL ? why : "bad option");
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage("no command given");

	/*
	 * Up to six descriptors per relay (two sockets, a pipe for each busy
	 * way): take the hard limit, CMD gets the old.
	 */
	if (getrlimit(RLIMIT_NOFILE, &shim_nofile) == 0 &&
	    shim_nofile.rlim_cur < shim_nofile.rlim_max) {
		struct rlimit	 rl = shim_nofile;

		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
			shim_nofile_raised = 1;
	}
	if (lo_up)
		loopback_up();
	if (uv_loop_init(&shim_loop) != 0)
		setup_fail("cannot start the event loop");
	listeners_open();
	signals_start();
	child_start(argv);

	uv_run(&shim_loop, UV_RUN_DEFAULT);
	if (uv_loop_close(&shim_loop) != 0)
		log_warnx("event loop closed with handles open");
	while ((l = TAILQ_FIRST(&listeners)) != NULL) {
		TAILQ_REMOVE(&listeners, l, entry);
		free(l->path);
		free(l);
	}
	return child_status;
}
