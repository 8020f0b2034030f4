/*
 * Fuzz the proxy's request reading: http-parser with the proxy's limits,
 * then the pure request check (target, port, Host agreement, CL+TE) and
 * the host normaliser behind it.  Any crash, sanitizer report or broken
 * invariant is a bug.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "httpmsg.h"
#include "proxy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct httpmsg		 m;
	struct proxy_target	 t;
	const char		*why = NULL;
	char			 again[HOST_BUF_LEN];
	ssize_t			 n;
	int			 status, is_ip;

	httpmsg_init(&m, HTTP_REQUEST, PROXY_MAX_URL, PROXY_MAX_HEADER_BYTES,
	    0);
	m.pause_on_headers = 1;
	n = httpmsg_feed(&m, (const char *)data, size);
	if (n >= 0 && m.headers_done) {
		status = proxy_check_request(&m, &t, &why);
		if (status == 0) {
			/* A target that passed is normalised and re-checks. */
			if (t.port < 1 || t.port > 65535 || t.host[0] == '\0')
				abort();
			if (host_target_normalize(t.host, again, sizeof again,
			    &is_ip, &why) != 0 || strcmp(again, t.host) != 0)
				abort();
			if (!t.is_connect && (t.path == NULL ||
			    t.path[0] != '/'))
				abort();
		} else if (why == NULL || (status != 400 && status != 414 &&
		    status != 431))
			abort();
		free(t.path);
	}
	httpmsg_free(&m);
	return 0;
}
