/*
 * Talking to spaceboxd.  Like tmux: if no engine answers on the socket,
 * start one with the same socket and wait until it is listening (the
 * engine detaches only once its socket is ready).
 */
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "httpmsg.h"
#include "xmalloc.h"

#define CLIENT_MAX_BODY	(16 * 1024 * 1024)

static int
client_connect(const char *path)
{
	struct sockaddr_un	sun;
	int			fd, saved;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sun.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* spaceboxd from beside our own binary, else from PATH. */
static void
client_engine_path(char *out, size_t len)
{
	char	self[PATH_MAX], *slash;
	ssize_t	n;

	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL) {
			*slash = '\0';
			snprintf(out, len, "%s/spaceboxd", self);
			if (access(out, X_OK) == 0)
				return;
		}
	}
	snprintf(out, len, "spaceboxd");
}

static int
client_start_engine(struct client *cl, char *err, size_t errlen)
{
	char	 engine[PATH_MAX];
	char	*argv[8];
	int	 argc = 0, status;
	pid_t	 pid;

	client_engine_path(engine, sizeof engine);
	argv[argc++] = engine;
	argv[argc++] = (char *)"--socket";
	argv[argc++] = (char *)cl->socket;
	if (cl->workspace != NULL) {
		argv[argc++] = (char *)"--workspace";
		argv[argc++] = (char *)cl->workspace;
	}
	argv[argc] = NULL;
	if ((pid = fork()) == -1) {
		snprintf(err, errlen, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		execvp(engine, argv);
		fprintf(stderr, "spacebox: cannot run %s: %s\n", engine,
		    strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, errlen, "could not start the engine on %s (see "
		    "the message above)", cl->socket);
		return -1;
	}
	return 0;
}

static int
client_write_all(int fd, const char *buf, size_t len)
{
	ssize_t	n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Connect, starting the engine if none answers; -1 with err. */
static int
client_open(struct client *cl, char *err, size_t errlen)
{
	int	fd;

	if ((fd = client_connect(cl->socket)) != -1)
		return fd;
	if (errno != ENOENT && errno != ECONNREFUSED) {
		snprintf(err, errlen, "cannot connect to the engine on %s: %s",
		    cl->socket, strerror(errno));
		return -1;
	}
	if (cl->no_start) {
		snprintf(err, errlen, "no engine is running on %s; start one "
		    "with 'spaceboxd --socket %s' or drop --no-start",
		    cl->socket, cl->socket);
		return -1;
	}
	if (client_start_engine(cl, err, errlen) == -1)
		return -1;
	if ((fd = client_connect(cl->socket)) == -1)
		snprintf(err, errlen, "started the engine but cannot connect "
		    "to %s: %s", cl->socket, strerror(errno));
	return fd;
}

static int
client_send(struct client *cl, int fd, const char *method, const char *path,
    const char *body, char *err, size_t errlen)
{
	char	*req;
	int	 len, rv;

	len = xasprintf(&req, "%s %s HTTP/1.1\r\nHost: spaceboxd\r\n"
	    "User-Agent: spacebox/" SPACEBOX_VERSION "\r\n"
	    "Content-Type: application/json\r\n"
	    "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
	    method, path, body != NULL ? strlen(body) : 0,
	    body != NULL ? body : "");
	if ((rv = client_write_all(fd, req, (size_t)len)) == -1)
		snprintf(err, errlen, "cannot send to the engine on %s: %s",
		    cl->socket, strerror(errno));
	free(req);
	return rv;
}

static void
client_body_out(struct httpmsg *m, const char *at, size_t n)
{
	/* Only a successful stream goes to stdout; errors are collected. */
	if (m->parser.status_code == 200) {
		fwrite(at, 1, n, stdout);
		fflush(stdout);
	} else if (m->bodylen < 4096) {
		m->body = xreallocarray(m->body, m->bodylen + n + 1, 1);
		memcpy(m->body + m->bodylen, at, n);
		m->bodylen += n;
		m->body[m->bodylen] = '\0';
	}
}

int
client_stream_open(struct client *cl, const char *path, char *err,
    size_t errlen)
{
	int	fd;

	if ((fd = client_open(cl, err, errlen)) == -1)
		return -1;
	if (client_send(cl, fd, "GET", path, NULL, err, errlen) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

int
client_stream(struct client *cl, const char *path)
{
	struct httpmsg		 m;
	struct client_resp	 resp;
	char			 err[1024], buf[16384];
	ssize_t			 n;
	int			 fd, rv = 0;

	if ((fd = client_open(cl, err, sizeof err)) == -1 ||
	    client_send(cl, fd, "GET", path, NULL, err, sizeof err) == -1) {
		fprintf(stderr, "spacebox: %s\n", err);
		if (fd != -1)
			close(fd);
		return -1;
	}
	httpmsg_init(&m, HTTP_RESPONSE, 8192, 65536, CLIENT_MAX_BODY);
	m.body_cb = client_body_out;
	while ((n = read(fd, buf, sizeof buf)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || httpmsg_feed(&m, buf, (size_t)n) == -1)
			break;
	}
	close(fd);
	if (m.parser.status_code != 200) {
		memset(&resp, 0, sizeof resp);
		resp.json = m.body != NULL ? cJSON_Parse(m.body) : NULL;
		fprintf(stderr, "spacebox: %s\n", client_error(&resp));
		cJSON_Delete(resp.json);
		rv = -1;
	}
	httpmsg_free(&m);
	return rv;
}

int
client_request(struct client *cl, const char *method, const char *path,
    const char *body, struct client_resp *resp, char *err, size_t errlen)
{
	struct httpmsg	 m;
	char		 buf[16384];
	ssize_t		 n;
	int		 fd;

	memset(resp, 0, sizeof *resp);
	if ((fd = client_open(cl, err, errlen)) == -1)
		return -1;
	if (client_send(cl, fd, method, path, body, err, errlen) == -1) {
		close(fd);
		return -1;
	}
	httpmsg_init(&m, HTTP_RESPONSE, 8192, 65536, CLIENT_MAX_BODY);
	for (;;) {
		n = read(fd, buf, sizeof buf);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* End of stream completes a body without a length. */
			httpmsg_feed(&m, buf, 0);
			break;
		}
		if (httpmsg_feed(&m, buf, (size_t)n) == -1 || m.complete)
			break;
	}
	close(fd);
	if (!m.complete) {
		snprintf(err, errlen, "the engine on %s closed the connection "
		    "without a full answer%s%s", cl->socket,
		    m.error != NULL ? ": " : "", m.error != NULL ? m.error : "");
		httpmsg_free(&m);
		return -1;
	}
	resp->status = m.parser.status_code;
	resp->body = m.body != NULL ? m.body : xstrdup("");
	resp->bodylen = m.bodylen;
	m.body = NULL;
	httpmsg_free(&m);
	resp->json = cJSON_ParseWithLength(resp->body, resp->bodylen);
	return 0;
}

void
client_resp_free(struct client_resp *resp)
{
	free(resp->body);
	cJSON_Delete(resp->json);
	memset(resp, 0, sizeof *resp);
}

const char *
client_error(const struct client_resp *resp)
{
	const cJSON	*e;

	e = cJSON_GetObjectItemCaseSensitive(resp->json, "error");
	if (cJSON_IsString(e))
		return e->valuestring;
	return "the engine refused the request";
}
