/*
 * Incremental HTTP/1.1 message reading on top of http-parser, with limits
 * checked as the bytes arrive.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httpmsg.h"
#include "xmalloc.h"

static int
httpmsg_fail(struct httpmsg *m, int status, const char *why)
{
	m->status = status;
	m->error = why;
	return -1;
}

static void
httpmsg_append(char **buf, size_t *len, const char *at, size_t n)
{
	*buf = xreallocarray(*buf, *len + n + 1, 1);
	memcpy(*buf + *len, at, n);
	*len += n;
	(*buf)[*len] = '\0';
}

static int
httpmsg_on_url(http_parser *p, const char *at, size_t n)
{
	struct httpmsg	*m = p->data;

	if (m->urllen + n > m->max_url)
		return httpmsg_fail(m, 414, "request target too long");
	httpmsg_append(&m->url, &m->urllen, at, n);
	return 0;
}

static int
httpmsg_count_bytes(struct httpmsg *m, size_t n)
{
	m->header_bytes += n;
	if (m->header_bytes > m->max_header_bytes)
		return httpmsg_fail(m, 431, "header block too large");
	return 0;
}

static int
httpmsg_on_field(http_parser *p, const char *at, size_t n)
{
	struct httpmsg		*m = p->data;
	struct httpmsg_header	*h;
	size_t			 len;

	if (httpmsg_count_bytes(m, n) == -1)
		return -1;
	if (m->in_value || m->nheaders == 0) {
		if (m->nheaders == HTTPMSG_MAX_HEADERS)
			return httpmsg_fail(m, 431, "too many headers");
		h = &m->headers[m->nheaders++];
		h->name = xstrdup("");
		h->value = xstrdup("");
		m->in_value = 0;
	}
	h = &m->headers[m->nheaders - 1];
	len = strlen(h->name);
	httpmsg_append(&h->name, &len, at, n);
	return 0;
}

static int
httpmsg_on_value(http_parser *p, const char *at, size_t n)
{
	struct httpmsg		*m = p->data;
	struct httpmsg_header	*h;
	size_t			 len;

	if (httpmsg_count_bytes(m, n) == -1)
		return -1;
	if (m->nheaders == 0)
		return httpmsg_fail(m, 400, "header value without a name");
	m->in_value = 1;
	h = &m->headers[m->nheaders - 1];
	len = strlen(h->value);
	httpmsg_append(&h->value, &len, at, n);
	return 0;
}

static int
httpmsg_on_headers(http_parser *p)
{
	struct httpmsg	*m = p->data;

	m->headers_done = 1;
	if (m->body_cb == NULL && p->content_length != UINT64_MAX &&
	    p->content_length > m->max_body)
		return httpmsg_fail(m, 413, "body too large");
	if (m->pause_on_headers)
		http_parser_pause(p, 1);
	return 0;
}

static int
httpmsg_on_body(http_parser *p, const char *at, size_t n)
{
	struct httpmsg	*m = p->data;

	if (m->body_cb != NULL) {
		m->body_cb(m, at, n);
		return 0;
	}
	if (m->bodylen + n > m->max_body)
		return httpmsg_fail(m, 413, "body too large");
	httpmsg_append(&m->body, &m->bodylen, at, n);
	return 0;
}

static int
httpmsg_on_complete(http_parser *p)
{
	struct httpmsg	*m = p->data;

	m->complete = 1;
	http_parser_pause(p, 1);
	return 0;
}

static const http_parser_settings httpmsg_settings = {
	.on_url = httpmsg_on_url,
	.on_header_field = httpmsg_on_field,
	.on_header_value = httpmsg_on_value,
	.on_headers_complete = httpmsg_on_headers,
	.on_body = httpmsg_on_body,
	.on_message_complete = httpmsg_on_complete,
};

void
httpmsg_init(struct httpmsg *m, enum http_parser_type type, size_t max_url,
    size_t max_header_bytes, size_t max_body)
{
	memset(m, 0, sizeof *m);
	http_parser_init(&m->parser, type);
	m->parser.data = m;
	m->max_url = max_url;
	m->max_header_bytes = max_header_bytes;
	m->max_body = max_body;
}

static void
httpmsg_clear(struct httpmsg *m)
{
	size_t	i;

	free(m->url);
	free(m->body);
	for (i = 0; i < m->nheaders; i++) {
		free(m->headers[i].name);
		free(m->headers[i].value);
	}
	m->url = m->body = NULL;
	m->urllen = m->bodylen = m->nheaders = m->header_bytes = 0;
	m->in_value = m->headers_done = m->complete = m->status = 0;
	m->error = NULL;
}

void
httpmsg_resume(struct httpmsg *m)
{
	http_parser_pause(&m->parser, 0);
}

void
httpmsg_reset(struct httpmsg *m)
{
	httpmsg_clear(m);
	http_parser_pause(&m->parser, 0);
}

void
httpmsg_free(struct httpmsg *m)
{
	httpmsg_clear(m);
}

ssize_t
httpmsg_feed(struct httpmsg *m, const char *buf, size_t len)
{
	size_t			n;
	enum http_errno		e;

	n = http_parser_execute(&m->parser, &httpmsg_settings, buf, len);
	e = HTTP_PARSER_ERRNO(&m->parser);
	if (e == HPE_OK || (e == HPE_PAUSED && (m->complete ||
	    (m->pause_on_headers && m->headers_done))))
		return (ssize_t)n;
	if (m->status == 0) {
		m->status = 400;
		m->error = http_errno_description(e);
	}
	return -1;
}

size_t
httpmsg_count(const struct httpmsg *m, const char *name)
{
	size_t	i, n = 0;

	for (i = 0; i < m->nheaders; i++)
		n += strcasecmp(m->headers[i].name, name) == 0;
	return n;
}

const char *
httpmsg_header(const struct httpmsg *m, const char *name)
{
	size_t	i;

	for (i = 0; i < m->nheaders; i++) {
		if (strcasecmp(m->headers[i].name, name) == 0)
			return m->headers[i].value;
	}
	return NULL;
}

const char *
httpmsg_reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 204: return "No Content";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 409: return "Conflict";
	case 413: return "Payload Too Large";
	case 414: return "URI Too Long";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return "Unknown";
	}
}
