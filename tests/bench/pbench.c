/*
 * pbench: load generator and origin for tests/bench/proxy-bench.sh.
 *
 *   pbench origin ADDR PORT
 *	epoll server.  The first byte of a connection picks its mode:
 *	'S' + 8-byte little-endian length L: sink L bytes, then answer with
 *	the 8-byte count, then close; anything else: echo every byte back
 *	(the first one included), and close after echoing a 'Q'.  Idle
 *	connections are simply held.  The origin closes first on purpose:
 *	TIME_WAIT then stays in its namespace instead of filling the host's
 *	ephemeral ports towards ORIGIN:443 (which would slow every later
 *	connect() there, direct or proxied).
 *   pbench freeport
 *	print a free TCP port on 127.0.0.1.
 *   pbench latency  TARGET N [FILE]
 *	N sequential connections (after 20 unmeasured warm-ups): connect,
 *	CONNECT handshake through a proxy, 1-byte echo round trip, close.
 *	Prints "ok=N fail=F p50_us=.. p99_us=.. mean_us=.. min_us=.. max_us=..";
 *	with FILE, also appends each sample (microseconds) to it, one a line.
 *   pbench throughput TARGET BYTES
 *	one connection (tunnel): the client sends BYTES, the origin sinks
 *	them and acknowledges.  Prints "bytes=.. secs=.. mibps=..".
 *   pbench hold TARGET N CONCURRENCY
 *	open N tunnels (CONCURRENCY handshakes at a time), each checked with
 *	a 1-byte echo, then hold them idle.  Prints "READY ok=.. fail=..";
 *	then reads commands on stdin: "check" (one more echo on every held
 *	tunnel: "CHECK ok=.. fail=.."), "quit" or EOF (ask the origin to
 *	close every tunnel, wait for the ends, exit).
 *
 * TARGET is either "direct HOST:PORT" (two words: direct 198.18.250.2:443)
 * or "proxy PROXYHOST:PORT NAME:PORT" (three words), the latter sending
 * "CONNECT NAME:PORT HTTP/1.1" to the proxy first.
 *
 * Everything is bounded in time: every blocking step has a timeout and
 * "hold" exits on its own after MAX_LIFE seconds.
 */
#define _GNU_SOURCE
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IO_TIMEOUT_MS	10000
#define MAX_LIFE	300
#define HOLD_SETUP_SECS	90
#define BIGBUF		(1024 * 1024)

static void __attribute__((noreturn, format(printf, 1, 2)))
die(const char *fmt, ...)
{
	va_list	ap;

	fprintf(stderr, "pbench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static double
now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
raise_nofile(void)
{
	struct rlimit	rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static void
parse_addr(const char *s, struct sockaddr_in *sin)
{
	char		 host[64];
	const char	*colon = strrchr(s, ':');
	size_t		 n;

	if (colon == NULL || (n = (size_t)(colon - s)) >= sizeof host)
		die("bad address %s", s);
	memcpy(host, s, n);
	host[n] = '\0';
	memset(sin, 0, sizeof *sin);
	sin->sin_family = AF_INET;
	sin->sin_port = htons((uint16_t)atoi(colon + 1));
	if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
		die("bad IPv4 address %s", host);
}

/* Where to connect and, through a proxy, what to ask for. */
struct target {
	struct sockaddr_in	 sin;
	const char		*connect_to;	/* NULL: direct */
	char			 req[512];
	size_t			 reqlen;
};

/* Parse TARGET at argv[*i]; advance *i past it. */
static void
parse_target(int argc, char **argv, int *i, struct target *t)
{
	int	n;

	memset(t, 0, sizeof *t);
	if (*i + 1 < argc && strcmp(argv[*i], "direct") == 0) {
		parse_addr(argv[*i + 1], &t->sin);
		*i += 2;
		return;
	}
	if (*i + 2 < argc && strcmp(argv[*i], "proxy") == 0) {
		parse_addr(argv[*i + 1], &t->sin);
		t->connect_to = argv[*i + 2];
		n = snprintf(t->req, sizeof t->req, "CONNECT %s HTTP/1.1\r\n"
		    "Host: %s\r\n\r\n", t->connect_to, t->connect_to);
		t->reqlen = (size_t)n;
		*i += 3;
		return;
	}
	die("bad target (direct HOST:PORT | proxy HOST:PORT NAME:PORT)");
}

/* Blocking helpers with a deadline (poll before each step). */

static int
wait_fd(int fd, short ev, int ms)
{
	struct pollfd	pfd = { .fd = fd, .events = ev };
	int		rv;

	do
		rv = poll(&pfd, 1, ms);
	while (rv == -1 && errno == EINTR);
	return rv == 1 ? 0 : -1;
}

static int
write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
			if (wait_fd(fd, POLLOUT, IO_TIMEOUT_MS) == -1)
				return -1;
			continue;
		}
		return -1;
	}
	return 0;
}

static int
read_full(int fd, void *buf, size_t len)
{
	char	*p = buf;
	ssize_t	 n;

	while (len > 0) {
		if (wait_fd(fd, POLLIN, IO_TIMEOUT_MS) == -1)
			return -1;
		n = read(fd, p, len);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
		} else if (n == 0 || (errno != EAGAIN && errno != EINTR))
			return -1;
	}
	return 0;
}

/* Wait (untimed by the caller) for the far end to close first. */
static void
wait_eof(int fd)
{
	char	b[64];
	ssize_t	n;

	for (;;) {
		if (wait_fd(fd, POLLIN, IO_TIMEOUT_MS) == -1)
			return;
		n = read(fd, b, sizeof b);
		if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR))
			return;
	}
}

/* Read a proxy's answer to CONNECT; 0 when it is a 200. */
static int
read_connect_reply(int fd, char *why, size_t whylen)
{
	char	buf[1024];
	size_t	len = 0;
	ssize_t	n;

	while (len < sizeof buf - 1) {
		if (wait_fd(fd, POLLIN, IO_TIMEOUT_MS) == -1) {
			snprintf(why, whylen, "timeout waiting for the "
			    "CONNECT answer");
			return -1;
		}
		if ((n = read(fd, buf + len, sizeof buf - 1 - len)) <= 0) {
			snprintf(why, whylen, "proxy closed during CONNECT");
			return -1;
		}
		len += (size_t)n;
		buf[len] = '\0';
		if (strstr(buf, "\r\n\r\n") != NULL)
			break;
	}
	if (strncmp(buf, "HTTP/1.", 7) != 0 || strncmp(buf + 8, " 200", 4)) {
		snprintf(why, whylen, "CONNECT answered: %.60s",
		    strtok(buf, "\r"));
		return -1;
	}
	return 0;
}

/* Connect (and tunnel) to the origin; -1 with why on failure. */
static int
open_tunnel(const struct target *t, char *why, size_t whylen)
{
	int	fd, one = 1, err;
	socklen_t elen = sizeof err;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
	    SOCK_CLOEXEC, 0)) == -1) {
		snprintf(why, whylen, "socket: %s", strerror(errno));
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(fd, (const struct sockaddr *)&t->sin, sizeof t->sin) ==
	    -1 && errno != EINPROGRESS) {
		snprintf(why, whylen, "connect: %s", strerror(errno));
		goto fail;
	}
	if (wait_fd(fd, POLLOUT, IO_TIMEOUT_MS) == -1) {
		snprintf(why, whylen, "connect: timeout");
		goto fail;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == -1 ||
	    err != 0) {
		snprintf(why, whylen, "connect: %s", strerror(err));
		goto fail;
	}
	if (t->connect_to != NULL) {
		if (write_all(fd, t->req, t->reqlen) == -1) {
			snprintf(why, whylen, "CONNECT write failed");
			goto fail;
		}
		if (read_connect_reply(fd, why, whylen) == -1)
			goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/* origin */

static void
oclose(int ep, int fd, long *open)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
	close(fd);
	(*open)--;
}

enum omode { OM_NEW, OM_ECHO, OM_SINKHDR, OM_SINK, OM_DONE };

struct oconn {
	enum omode	mode;
	unsigned char	hdr[8];
	size_t		nhdr;
	uint64_t	want;
	uint64_t	got;
};

static int
cmd_origin(int argc, char **argv)
{
	struct sockaddr_in	 sin;
	struct epoll_event	 ev, evs[256];
	struct oconn		*conns;
	struct rlimit		 rl;
	static char		 buf[BIGBUF];
	int			 ls, ep, one = 1, n, i, fd, cfd;
	long			 open = 0, peak = 0;
	size_t			 maxfd;

	if (argc != 4)
		die("usage: pbench origin ADDR PORT");
	raise_nofile();
	getrlimit(RLIMIT_NOFILE, &rl);
	maxfd = rl.rlim_cur > 1048576 ? 1048576 : rl.rlim_cur;
	if ((conns = calloc(maxfd, sizeof *conns)) == NULL)
		die("calloc");
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)atoi(argv[3]));
	if (inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1)
		die("bad address %s", argv[2]);
	if ((ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) == -1)
		die("socket: %s", strerror(errno));
	setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(ls, (struct sockaddr *)&sin, sizeof sin) == -1)
		die("bind %s:%s: %s", argv[2], argv[3], strerror(errno));
	if (listen(ls, 4096) == -1)
		die("listen: %s", strerror(errno));
	if ((ep = epoll_create1(0)) == -1)
		die("epoll_create1: %s", strerror(errno));
	ev.events = EPOLLIN;
	ev.data.fd = ls;
	epoll_ctl(ep, EPOLL_CTL_ADD, ls, &ev);
	signal(SIGPIPE, SIG_IGN);
	printf("origin listening on %s:%s\n", argv[2], argv[3]);
	fflush(stdout);

	for (;;) {
		n = epoll_wait(ep, evs, 256, -1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			die("epoll_wait: %s", strerror(errno));
		for (i = 0; i < n; i++) {
			fd = evs[i].data.fd;
			if (fd == ls) {
				while ((cfd = accept4(ls, NULL, NULL,
				    SOCK_NONBLOCK | SOCK_CLOEXEC)) != -1) {
					if ((size_t)cfd >= maxfd) {
						close(cfd);
						continue;
					}
					setsockopt(cfd, IPPROTO_TCP,
					    TCP_NODELAY, &one, sizeof one);
					memset(&conns[cfd], 0,
					    sizeof conns[cfd]);
					ev.events = EPOLLIN;
					ev.data.fd = cfd;
					epoll_ctl(ep, EPOLL_CTL_ADD, cfd, &ev);
					if (++open > peak)
						peak = open;
				}
				continue;
			}
			ssize_t	 r = read(fd, buf, sizeof buf);
			struct oconn *c = &conns[fd];
			size_t	 off = 0;

			if (r == -1 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				oclose(ep, fd, &open);
				continue;
			}
			if (c->mode == OM_NEW)
				c->mode = buf[0] == 'S' ? OM_SINKHDR : OM_ECHO;
			if (c->mode == OM_ECHO) {
				/* Tiny echoes only: a short write is dropped. */
				if (write(fd, buf, (size_t)r) != r)
					fprintf(stderr, "origin: short echo\n");
				if (memchr(buf, 'Q', (size_t)r) != NULL)
					oclose(ep, fd, &open);
				continue;
			}
			if (c->mode == OM_SINKHDR) {
				off = c->nhdr == 0 ? 1 : 0;	/* the 'S' */
				while (off < (size_t)r && c->nhdr < 8)
					c->hdr[c->nhdr++] = (unsigned char)
					    buf[off++];
				if (c->nhdr < 8)
					continue;
				c->want = 0;
				for (int k = 7; k >= 0; k--)
					c->want = c->want << 8 | c->hdr[k];
				c->mode = OM_SINK;
			}
			if (c->mode == OM_SINK) {
				c->got += (uint64_t)r - off;
				if (c->got >= c->want) {
					unsigned char ack[8];

					for (int k = 0; k < 8; k++)
						ack[k] = (unsigned char)
						    (c->got >> (8 * k));
					if (write(fd, ack, 8) != 8)
						fprintf(stderr, "origin: "
						    "short ack\n");
					c->mode = OM_DONE;
					oclose(ep, fd, &open);
				}
			}
		}
	}
}

/* latency */

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * One measured round: connect (+ CONNECT) and a 1-byte echo.  The byte is
 * 'Q', so the origin closes after echoing it; waiting for that end is
 * not measured.  Returns microseconds, or -1.
 */
static double
one_round(const struct target *t, char *why, size_t whylen)
{
	char	c = 'Q', r;
	double	t0 = now(), us;
	int	fd;

	if ((fd = open_tunnel(t, why, whylen)) == -1)
		return -1;
	if (write_all(fd, &c, 1) == -1 || read_full(fd, &r, 1) == -1 ||
	    r != c) {
		snprintf(why, whylen, "echo failed");
		close(fd);
		return -1;
	}
	us = (now() - t0) * 1e6;
	wait_eof(fd);
	close(fd);
	return us;
}

static int
cmd_latency(int argc, char **argv)
{
	struct target	 t;
	char		 why[256] = "";
	double		*s, us, sum = 0;
	int		 i = 2, n, k, ok = 0, fail = 0;
	FILE		*out = NULL;

	parse_target(argc, argv, &i, &t);
	if (i != argc - 1 && i != argc - 2)
		die("usage: pbench latency TARGET N [FILE]");
	if (i == argc - 2 && (out = fopen(argv[i + 1], "a")) == NULL)
		die("%s: %s", argv[i + 1], strerror(errno));
	n = atoi(argv[i]);
	if (n < 1 || (s = calloc((size_t)n, sizeof *s)) == NULL)
		die("bad N");
	signal(SIGPIPE, SIG_IGN);
	for (k = 0; k < 20; k++)		/* warm-up, not measured */
		one_round(&t, why, sizeof why);
	for (k = 0; k < n; k++) {
		if ((us = one_round(&t, why, sizeof why)) < 0) {
			if (fail++ == 0)
				fprintf(stderr, "pbench latency: %s\n", why);
			continue;
		}
		s[ok] = us;
		sum += s[ok++];
	}
	if (out != NULL) {
		for (k = 0; k < ok; k++)
			fprintf(out, "%.1f\n", s[k]);
		fclose(out);
	}
	if (ok == 0) {
		printf("ok=0 fail=%d\n", fail);
		return 1;
	}
	qsort(s, (size_t)ok, sizeof *s, cmp_double);
	/* Nearest rank. */
	printf("ok=%d fail=%d p50_us=%.1f p99_us=%.1f mean_us=%.1f "
	    "min_us=%.1f max_us=%.1f\n", ok, fail,
	    s[(ok * 50 + 99) / 100 - 1], s[(ok * 99 + 99) / 100 - 1],
	    sum / ok, s[0], s[ok - 1]);
	return fail == 0 ? 0 : 1;
}

/* throughput */

static int
cmd_throughput(int argc, char **argv)
{
	struct target	 t;
	char		 why[256] = "", *buf;
	unsigned char	 hdr[9], ack[8];
	uint64_t	 total, sent = 0, got = 0;
	size_t		 chunk;
	double		 t0, secs;
	struct rusage	 ru;
	int		 i = 2, fd, k;

	parse_target(argc, argv, &i, &t);
	if (i != argc - 1)
		die("usage: pbench throughput TARGET BYTES");
	total = strtoull(argv[i], NULL, 10);
	signal(SIGPIPE, SIG_IGN);
	if ((buf = malloc(BIGBUF)) == NULL)
		die("malloc");
	memset(buf, 'x', BIGBUF);
	if ((fd = open_tunnel(&t, why, sizeof why)) == -1)
		die("throughput: %s", why);
	hdr[0] = 'S';
	for (k = 0; k < 8; k++)
		hdr[1 + k] = (unsigned char)(total >> (8 * k));
	t0 = now();
	if (write_all(fd, hdr, sizeof hdr) == -1)
		die("throughput: write failed");
	while (sent < total) {
		chunk = total - sent < BIGBUF ? (size_t)(total - sent) : BIGBUF;
		if (write_all(fd, buf, chunk) == -1)
			die("throughput: write failed after %llu bytes",
			    (unsigned long long)sent);
		sent += chunk;
	}
	if (read_full(fd, ack, sizeof ack) == -1)
		die("throughput: no acknowledgement from the origin");
	secs = now() - t0;
	getrusage(RUSAGE_SELF, &ru);
	for (k = 7; k >= 0; k--)
		got = got << 8 | ack[k];
	wait_eof(fd);
	close(fd);
	if (got != total)
		die("throughput: origin got %llu of %llu bytes",
		    (unsigned long long)got, (unsigned long long)total);
	printf("bytes=%llu secs=%.3f mibps=%.1f client_cpu_s=%.3f\n",
	    (unsigned long long)total, secs, (double)total / 1048576.0 / secs,
	    (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return 0;
}

/* hold */

enum hstate { HS_FREE, HS_CONNECTING, HS_SENDREQ, HS_READREPLY, HS_ECHO,
    HS_IDLE, HS_CHECK, HS_QUIT };

struct hconn {
	int		fd;
	enum hstate	state;
	size_t		off;
	char		buf[256];
};

static void
hset(int ep, struct hconn *c, uint32_t events)
{
	struct epoll_event	ev = { .events = events };

	ev.data.ptr = c;
	epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static int
cmd_hold(int argc, char **argv)
{
	struct target		 t;
	struct epoll_event	 ev, evs[512];
	struct hconn		*cs, *c;
	char			 why[256] = "", line[64];
	double			 start = now(), deadline;
	int			 i = 2, n, conc, ep, k, m, started = 0;
	int			 inflight = 0, ok = 0, fail = 0, dropped = 0;
	int			 checking = 0, cok = 0, cfail = 0, ready = 0;
	int			 in_check = 0, quitting = 0;
	double			 qdeadline = 0;
	int			 one = 1, err;
	socklen_t		 elen;

	parse_target(argc, argv, &i, &t);
	if (i != argc - 2)
		die("usage: pbench hold TARGET N CONCURRENCY");
	n = atoi(argv[i]);
	conc = atoi(argv[i + 1]);
	if (n < 1 || conc < 1)
		die("bad N or CONCURRENCY");
	raise_nofile();
	signal(SIGPIPE, SIG_IGN);
	if ((cs = calloc((size_t)n, sizeof *cs)) == NULL)
		die("calloc");
	if ((ep = epoll_create1(0)) == -1)
		die("epoll_create1");
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;		/* stdin */
	epoll_ctl(ep, EPOLL_CTL_ADD, 0, &ev);
	deadline = start + HOLD_SETUP_SECS;

#define HFAIL(c, ...) do {						\
	if (fail++ == 0) {						\
		snprintf(why, sizeof why, __VA_ARGS__);			\
	}								\
	epoll_ctl(ep, EPOLL_CTL_DEL, (c)->fd, NULL);			\
	close((c)->fd);							\
	(c)->state = HS_FREE;						\
	inflight--;							\
} while (0)

	for (;;) {
		/* Start handshakes up to the concurrency limit. */
		while (!ready && started < n && inflight < conc) {
			c = &cs[started++];
			c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK |
			    SOCK_CLOEXEC, 0);
			if (c->fd == -1) {
				if (fail++ == 0)
					snprintf(why, sizeof why, "socket: %s",
					    strerror(errno));
				continue;
			}
			setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one,
			    sizeof one);
			inflight++;
			c->state = HS_CONNECTING;
			ev.events = EPOLLOUT;
			ev.data.ptr = c;
			epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
			if (connect(c->fd, (struct sockaddr *)&t.sin,
			    sizeof t.sin) == -1 && errno != EINPROGRESS)
				HFAIL(c, "connect: %s", strerror(errno));
		}
		if (!ready && started == n && inflight == 0) {
			ready = 1;
			printf("READY ok=%d fail=%d secs=%.2f%s%s\n", ok, fail,
			    now() - start, fail ? " first_error=" : "",
			    fail ? why : "");
			fflush(stdout);
		}
		if (!ready && now() > deadline) {
			printf("READY ok=%d fail=%d secs=%.2f timeout "
			    "inflight=%d\n", ok, fail + inflight + (n -
			    started), now() - start, inflight);
			fflush(stdout);
			ready = 1;
		}
		if (now() - start > MAX_LIFE)
			return 1;
		if (quitting && (quitting == 1 || now() > qdeadline))
			return 0;
		if (in_check && now() > deadline) {
			printf("CHECK ok=%d fail=%d dropped=%d timeout\n",
			    cok, cfail + checking, dropped);
			fflush(stdout);
			in_check = 0;
		}

		m = epoll_wait(ep, evs, 512, 100);
		if (m == -1 && errno == EINTR)
			continue;
		for (k = 0; k < m; k++) {
			ssize_t r;

			c = evs[k].data.ptr;
			if (c == NULL) {		/* stdin */
				r = read(0, line, sizeof line - 1);
				if (quitting)
					continue;
				if (r <= 0 || strncmp(line, "quit", 4) == 0) {
					/* The origin closes first: see top. */
					quitting = 1;
					qdeadline = now() + 10;
					for (int j = 0; j < n; j++) {
						if (cs[j].state != HS_IDLE &&
						    cs[j].state != HS_CHECK)
							continue;
						if (write(cs[j].fd, "Q", 1) !=
						    1)
							continue;
						cs[j].state = HS_QUIT;
						quitting++;
					}
					if (r <= 0)
						epoll_ctl(ep, EPOLL_CTL_DEL, 0,
						    NULL);
					continue;
				}
				line[r] = '\0';
				if (strncmp(line, "check", 5) == 0 && ready &&
				    !in_check) {
					cok = cfail = checking = 0;
					in_check = 1;
					deadline = now() + 20;
					for (int j = 0; j < n; j++) {
						if (cs[j].state != HS_IDLE)
							continue;
						if (write(cs[j].fd, "c", 1) !=
						    1) {
							cfail++;
							continue;
						}
						cs[j].state = HS_CHECK;
						checking++;
					}
				}
				goto checked;
			}
			switch (c->state) {
			case HS_CONNECTING:
				elen = sizeof err;
				if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR,
				    &err, &elen) == -1 || err != 0) {
					HFAIL(c, "connect: %s", strerror(err));
					break;
				}
				if (t.connect_to == NULL) {
					c->state = HS_ECHO;
					goto echo;
				}
				c->state = HS_SENDREQ;
				c->off = 0;
				/* FALLTHROUGH */
			case HS_SENDREQ:
				r = write(c->fd, t.req + c->off,
				    t.reqlen - c->off);
				if (r == -1 && errno == EAGAIN)
					break;
				if (r <= 0) {
					HFAIL(c, "CONNECT write: %s",
					    strerror(errno));
					break;
				}
				c->off += (size_t)r;
				if (c->off < t.reqlen)
					break;
				c->state = HS_READREPLY;
				c->off = 0;
				hset(ep, c, EPOLLIN);
				break;
			case HS_READREPLY:
				r = read(c->fd, c->buf + c->off,
				    sizeof c->buf - 1 - c->off);
				if (r == -1 && errno == EAGAIN)
					break;
				if (r <= 0) {
					HFAIL(c, "proxy closed during CONNECT");
					break;
				}
				c->off += (size_t)r;
				c->buf[c->off] = '\0';
				if (strstr(c->buf, "\r\n\r\n") == NULL) {
					if (c->off >= sizeof c->buf - 1)
						HFAIL(c, "CONNECT answer too "
						    "long");
					break;
				}
				if (strncmp(c->buf, "HTTP/1.", 7) != 0 ||
				    strncmp(c->buf + 8, " 200", 4) != 0) {
					HFAIL(c, "CONNECT answered: %.60s",
					    strtok(c->buf, "\r"));
					break;
				}
				c->state = HS_ECHO;
			echo:
				if (write(c->fd, "h", 1) != 1) {
					HFAIL(c, "probe write: %s",
					    strerror(errno));
					break;
				}
				c->off = 0;
				hset(ep, c, EPOLLIN);
				c->state = HS_ECHO;
				break;
			case HS_ECHO:
				r = read(c->fd, c->buf, 1);
				if (r == -1 && errno == EAGAIN)
					break;
				if (r != 1 || c->buf[0] != 'h') {
					HFAIL(c, "probe echo failed");
					break;
				}
				c->state = HS_IDLE;
				inflight--;
				ok++;
				break;
			case HS_IDLE:
			case HS_CHECK:
				r = read(c->fd, c->buf, 1);
				if (r == -1 && errno == EAGAIN)
					break;
				if (r == 1 && c->state == HS_CHECK) {
					c->state = HS_IDLE;
					cok++;
					checking--;
				} else {
					/* Closed under us (or junk). */
					if (c->state == HS_CHECK) {
						cfail++;
						checking--;
					} else
						dropped++;
					epoll_ctl(ep, EPOLL_CTL_DEL, c->fd,
					    NULL);
					close(c->fd);
					c->state = HS_FREE;
					if (dropped + cfail == 1)
						fprintf(stderr, "pbench hold: a "
						    "held tunnel was closed\n");
				}
				break;
			case HS_QUIT:
				r = read(c->fd, c->buf, sizeof c->buf);
				if (r > 0 || (r == -1 && errno == EAGAIN))
					break;
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
				close(c->fd);
				c->state = HS_FREE;
				quitting--;
				break;
			default:
				break;
			}
		checked:
			if (in_check && checking == 0) {
				printf("CHECK ok=%d fail=%d dropped=%d\n",
				    cok, cfail, dropped);
				fflush(stdout);
				in_check = 0;
			}
		}
	}
}

static int
cmd_freeport(void)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	int			fd;

	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1 ||
	    bind(fd, (struct sockaddr *)&sin, sizeof sin) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		die("freeport: %s", strerror(errno));
	printf("%d\n", ntohs(sin.sin_port));
	close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc < 2)
		die("usage: pbench origin|freeport|latency|throughput|hold ...");
	if (strcmp(argv[1], "origin") == 0)
		return cmd_origin(argc, argv);
	if (strcmp(argv[1], "freeport") == 0)
		return cmd_freeport();
	if (strcmp(argv[1], "latency") == 0)
		return cmd_latency(argc, argv);
	if (strcmp(argv[1], "throughput") == 0)
		return cmd_throughput(argc, argv);
	if (strcmp(argv[1], "hold") == 0)
		return cmd_hold(argc, argv);
	die("unknown command %s", argv[1]);
}
