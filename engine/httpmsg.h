/*
 * One HTTP/1.1 message read with http-parser: request line or status, the
 * headers, the body.  Used by the engine's API server, the client and (with
 * tighter limits) the allowlist proxy.  Limits are enforced while parsing
 * so an oversized message is refused before it is buffered.
 */
#ifndef SPACEBOX_HTTPMSG_H
#define SPACEBOX_HTTPMSG_H

#include <stddef.h>
#include <sys/types.h>

#include <http_parser.h>

#define HTTPMSG_MAX_HEADERS	100

struct httpmsg_header {
	char	*name;		/* owned */
	char	*value;		/* owned */
};

/*
 * Created by httpmsg_init, reused with httpmsg_reset between messages on
 * one connection, released with httpmsg_free.
 */
struct httpmsg {
	http_parser		 parser;
	size_t			 max_url;
	size_t			 max_header_bytes;
	size_t			 max_body;

	char			*url;		/* request target, owned */
	size_t			 urllen;
	struct httpmsg_header	 headers[HTTPMSG_MAX_HEADERS];
	size_t			 nheaders;
	size_t			 header_bytes;
	int			 in_value;
	char			*body;		/* owned, NUL-terminated */
	size_t			 bodylen;

	/*
	 * Optional, for the proxy: pause once the head is complete (so a
	 * decision can be taken before any body byte is consumed), and hand
	 * body bytes to body_cb instead of buffering them.
	 */
	int			 pause_on_headers;
	void			(*body_cb)(struct httpmsg *, const char *,
				    size_t);
	void			*arg;

	int			 headers_done;
	int			 complete;
	int			 status;	/* error status to answer */
	const char		*error;		/* static reason */
};

void		 httpmsg_init(struct httpmsg *, enum http_parser_type,
		    size_t max_url, size_t max_header_bytes, size_t max_body);
void		 httpmsg_reset(struct httpmsg *);
/* Continue after a pause on the head (pause_on_headers). */
void		 httpmsg_resume(struct httpmsg *);
void		 httpmsg_free(struct httpmsg *);

/*
 * Feed bytes.  Returns how many were consumed (parsing pauses after one
 * complete message so the rest can be fed again after httpmsg_reset), or
 * -1 when the input is refused: m->status then holds the status to answer
 * (400, 413, 414, 431) and m->error a one-line reason.
 */
ssize_t		 httpmsg_feed(struct httpmsg *, const char *, size_t);

/* Count of headers named name (case-insensitive); value of the first. */
size_t		 httpmsg_count(const struct httpmsg *, const char *name);
const char	*httpmsg_header(const struct httpmsg *, const char *name);

const char	*httpmsg_reason(int status);

#endif
