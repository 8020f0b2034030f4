/*
 * The allowlist proxy: one listener per app in "only these sites" mode,
 * the only way out of such an app's sandbox.  HTTP/1.1 CONNECT and
 * absolute-form http:// requests, parsed with http-parser; the site list
 * decides, the resolved address is checked, and exactly that address is
 * dialled.
 */
#ifndef SPACEBOX_PROXY_H
#define SPACEBOX_PROXY_H

#include <cjson/cJSON.h>
#include <uv.h>

#include "host.h"
#include "policy.h"

#define PROXY_MAX_WANTS		32
#define PROXY_HEADER_SECS	15
#define PROXY_CONNECT_SECS	10
#define PROXY_MAX_URL		8192
#define PROXY_MAX_HEADER_BYTES	16384

struct proxy_limits {
	int	max_tunnels;	/* per app; beyond it 429 */
	int	idle_secs;	/* idle tunnel timeout */
	int	header_secs;	/* whole-header deadline */
	int	connect_secs;	/* upstream connect timeout */
};

struct proxy;
struct httpmsg;

/* What a request head asks for, once checked. */
struct proxy_target {
	int	 is_connect;
	char	 host[HOST_BUF_LEN];	/* normalised */
	int	 port;
	char	*path;		/* plain http: origin-form target, owned */
	int	 chunked;
};

/*
 * Check a complete request head (pure: no I/O, no policy): CONNECT in
 * authority form with a port, or an absolute http:// URL without
 * userinfo; one Host header that names the target; no CL+TE; no line
 * breaks in header values.  Returns 0 and fills t (free t->path), or the
 * HTTP status to answer with the reason in *why.
 */
int		 proxy_check_request(const struct httpmsg *,
		    struct proxy_target *t, const char **why);

/* Called for each host newly added to the app's wants. */
typedef void (*proxy_want_cb)(void *arg, const char *app_id,
    const char *host);

/*
 * Start a proxy for one app on 127.0.0.1 (port 0: any free port).  The
 * site list and allowPrivate are copied from the policy.  Returns NULL
 * with err on failure.  The proxy is freed by proxy_stop.
 */
struct proxy	*proxy_start(uv_loop_t *, const char *app_id,
		    const struct policy *, const struct proxy_limits *,
		    proxy_want_cb, void *arg, char *err, size_t errlen);

/* Also accept on a unix socket at path (the sandbox's way in). */
int		 proxy_listen_unix(struct proxy *, const char *path,
		    char *err, size_t errlen);

int		 proxy_port(const struct proxy *);
const char	*proxy_app_id(const struct proxy *);

/*
 * Apply a new site list at once: new requests are judged by it, and
 * established tunnels to hosts it no longer allows are closed.
 */
void		 proxy_set_policy(struct proxy *, const struct policy *);

/* Close the listener and every connection; frees the proxy. */
void		 proxy_stop(struct proxy *);

/* {"port", "stats": {"allowed", "denied", "recentDenied": [...]}} */
cJSON		*proxy_json(const struct proxy *);

#endif
