/*
 * Host names for the site list and the allowlist proxy.  Site-list entries
 * are what a user typed or pasted and get cleaned up and vetted by policy
 * (no IP literals, no names of this machine or of a cloud metadata
 * service); proxy targets only get their syntax checked and their IP
 * literals flagged, since the proxy decides policy by site list and by
 * address.  Everything works on fixed buffers and treats its input as
 * hostile bytes.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <limits.h>
#include <string.h>

#include "host.h"

/* Longest IPv6 text form inet_pton can accept, with room to spare. */
#define HOST_IP6_BUF	64

static const char	 R_EMPTY[] = "empty host name";
static const char	 R_CTRL[] = "control characters are not allowed";
static const char	 R_SPACE[] =
    "spaces are not allowed: give one host name per entry";
static const char	 R_NONASCII[] =
    "raw non-ASCII name: give it in punycode (xn--...)";
static const char	 R_PERCENT[] =
    "percent-encoding is not allowed: type the name itself";
static const char	 R_USERINFO[] =
    "user name or password ('@') is not allowed: give the host only";
static const char	 R_SEP[] =
    "separator in host name: give one host name per entry";
static const char	 R_CHAR[] =
    "invalid character: use letters, digits, '-', '_' and '.'";
static const char	 R_PORT[] = "bad port after ':'";
static const char	 R_COLON[] =
    "unexpected ':' in host name: give the port separately";
static const char	 R_BRACKET[] =
    "brackets may only enclose an IPv6 address";
static const char	 R_ZONE[] = "IPv6 zone ids are not allowed";
static const char	 R_IP[] =
    "IP literals are not allowed: list host names only";
static const char	 R_NUMERIC[] =
    "name ends in a number, which reads as an IP address";
static const char	 R_TOOLONG[] = "name longer than 253 characters";
static const char	 R_LABELLONG[] = "label longer than 63 characters";
static const char	 R_LABELEMPTY[] =
    "empty label (leading dot or two dots in a row)";
static const char	 R_HYPHEN[] = "label starts or ends with '-'";
static const char	 R_WILDPOS[] =
    "wildcard only as a leading '*.' (as in *.example.com)";
static const char	 R_WILDALL[] = "a bare '*' would match every site";
static const char	 R_WILDSHORT[] =
    "wildcard needs two labels after '*.' (*.example.com, not *.com)";
static const char	 R_WILDTARGET[] = "no wildcard in a target host";
static const char	 R_LOCAL[] = "localhost names point at this machine";
static const char	 R_META[] = "cloud metadata service name";
static const char	 R_METAWILD[] =
    "wildcard covers a cloud metadata service name";
static const char	 R_BUF[] = "output buffer too small";

/* Names of this machine besides *.localhost (RFC 6761, Debian /etc/hosts). */
static const char *const host_local_names[] = {
	"localhost.localdomain",
	"ip6-localhost",
	"ip6-loopback",
};

static const char *const host_meta_names[] = {
	"metadata",
	"metadata.google.internal",
	"metadata.goog",
	"instance-data",
	"instance-data.ec2.internal",
};

#define nitems(a)	(sizeof (a) / sizeof (a)[0])

static int
host_lower(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A' + 'a';
	return c;
}

static int
host_isdigit(int c)
{
	return c >= '0' && c <= '9';
}

static int
host_isxdigit(int c)
{
	c = host_lower(c);
	return host_isdigit(c) || (c >= 'a' && c <= 'f');
}

static int
host_isalpha(int c)
{
	c = host_lower(c);
	return c >= 'a' && c <= 'z';
}

static int
host_isspace(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	    c == '\v' || c == '\f';
}

/* ASCII-only, locale-free case-insensitive comparison of n bytes. */
static int
host_eq(const char *a, const char *b, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (host_lower((unsigned char)a[i]) !=
		    host_lower((unsigned char)b[i]))
			return 0;
	}
	return 1;
}

static const char *
host_memchr(const char *s, size_t len, int c)
{
	return memchr(s, c, len);
}

/* Reason for a byte that may not appear in a host name. */
static const char *
host_badbyte(unsigned char c)
{
	if (c >= 0x80)
		return R_NONASCII;
	if (c == ' ' || c == '\t')
		return R_SPACE;
	if (c < 0x20 || c == 0x7f)
		return R_CTRL;
	if (c == '%')
		return R_PERCENT;
	if (c == '@')
		return R_USERINFO;
	if (c == ',' || c == ';' || c == '|')
		return R_SEP;
	return R_CHAR;
}

/*
 * The WHATWG URL parser's "ends in a number" test: a host whose last label
 * (after dropping trailing dots) is all digits or a 0x hex number is parsed
 * as IPv4.  inet_aton accepts a subset of these.
 */
static int
host_ends_in_number(const char *s, size_t len)
{
	size_t	start, i;

	while (len > 0 && s[len - 1] == '.')
		len--;
	if (len == 0)
		return 0;
	start = len;
	while (start > 0 && s[start - 1] != '.')
		start--;
	if (start == len)
		return 0;

	for (i = start; i < len; i++) {
		if (!host_isdigit((unsigned char)s[i]))
			break;
	}
	if (i == len)
		return 1;

	if (len - start < 2 || s[start] != '0' ||
	    host_lower((unsigned char)s[start + 1]) != 'x')
		return 0;
	for (i = start + 2; i < len; i++) {
		if (!host_isxdigit((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

/* IPv6 text (no brackets, no zone) as inet_pton would take it. */
static int
host_is_ip6(const char *s, size_t len)
{
	char		buf[HOST_IP6_BUF];
	struct in6_addr	a6;

	if (len == 0 || len >= sizeof buf)
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return inet_pton(AF_INET6, buf, &a6) == 1;
}

/* Loose IPv4 (decimal, octal, hex, short forms) as inet_aton takes it. */
static int
host_is_ip4(const char *s, size_t len)
{
	char		buf[HOST_BUF_LEN];
	struct in_addr	a4;

	if (len == 0 || len >= sizeof buf)
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	return inet_aton(buf, &a4) != 0;
}

int
host_is_ip_literal(const char *in)
{
	const char	*pct;
	size_t		 len, len6;

	if (in == NULL)
		return 0;
	len = strlen(in);
	if (len >= 2 && in[0] == '[' && in[len - 1] == ']') {
		in++;
		len -= 2;
	}
	while (len > 0 && in[len - 1] == '.')
		len--;
	if (len == 0)
		return 0;

	/* getaddrinfo takes "fe80::1%eth0", so look past a zone id. */
	len6 = len;
	if ((pct = host_memchr(in, len, '%')) != NULL)
		len6 = pct - in;
	if (host_is_ip6(in, len6))
		return 1;

	/*
	 * inet_aton also takes trailing garbage after white space, which
	 * host_ends_in_number does not see.
	 */
	return host_is_ip4(in, len) || host_ends_in_number(in, len);
}

/* Check the labels of a lowercase name without wildcard; count them. */
static int
host_check_labels(const char *s, size_t len, size_t *nlabels,
    const char **why)
{
	size_t		 i, start;
	unsigned char	 c;

	*nlabels = 0;
	start = 0;
	for (i = 0; i <= len; i++) {
		if (i < len && s[i] != '.') {
			c = (unsigned char)s[i];
			if (c == '*') {
				*why = R_WILDPOS;
				return -1;
			}
			if (!host_isalpha(c) && !host_isdigit(c) &&
			    c != '-' && c != '_') {
				*why = host_badbyte(c);
				return -1;
			}
			continue;
		}
		if (i == start) {
			*why = R_LABELEMPTY;
			return -1;
		}
		if (i - start > HOST_LABEL_MAX_LEN) {
			*why = R_LABELLONG;
			return -1;
		}
		if (s[start] == '-' || s[i - 1] == '-') {
			*why = R_HYPHEN;
			return -1;
		}
		(*nlabels)++;
		start = i + 1;
	}
	return 0;
}

/* name is, or is under, suffix (both lowercase). */
static int
host_is_under(const char *name, size_t len, const char *suffix)
{
	size_t	slen = strlen(suffix);

	if (len == slen)
		return memcmp(name, suffix, len) == 0;
	return len > slen && name[len - slen - 1] == '.' &&
	    memcmp(name + len - slen, suffix, slen) == 0;
}

/* Policy for a syntactically valid, lowercase site entry. */
static int
host_site_policy(const char *entry, const char *base, size_t blen,
    const char **why)
{
	size_t	i;

	if (host_is_ip4(base, blen)) {
		*why = R_IP;
		return -1;
	}
	if (host_ends_in_number(base, blen)) {
		*why = R_NUMERIC;
		return -1;
	}
	if (host_is_under(base, blen, "localhost")) {
		*why = R_LOCAL;
		return -1;
	}
	for (i = 0; i < nitems(host_local_names); i++) {
		if (host_match(entry, host_local_names[i])) {
			*why = R_LOCAL;
			return -1;
		}
	}
	for (i = 0; i < nitems(host_meta_names); i++) {
		if (host_match(entry, host_meta_names[i])) {
			*why = entry[0] == '*' ? R_METAWILD : R_META;
			return -1;
		}
	}
	return 0;
}

/* Lowercase len bytes of s into buf; len is known to fit. */
static ssize_t
host_put(const char *s, size_t len, char *buf)
{
	size_t	i;

	for (i = 0; i < len; i++)
		buf[i] = host_lower((unsigned char)s[i]);
	buf[len] = '\0';
	return len;
}

/* Find the authority in a pasted URL, or the whole entry if it is not one. */
static void
host_site_authority(const char *s, size_t len, const char **a, size_t *alen)
{
	size_t	i, n;

	/* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) "://" */
	for (n = 0; n < len; n++) {
		if (!host_isalpha((unsigned char)s[n]) &&
		    (n == 0 || (!host_isdigit((unsigned char)s[n]) &&
		    s[n] != '+' && s[n] != '-' && s[n] != '.')))
			break;
	}
	if (n > 0 && len - n >= 3 && memcmp(s + n, "://", 3) == 0) {
		s += n + 3;
		len -= n + 3;
	}

	for (i = 0; i < len; i++) {
		if (s[i] == '/' || s[i] == '?' || s[i] == '#')
			break;
	}
	*a = s;
	*alen = i;
}

/* Site entry into buf (HOST_BUF_LEN bytes); returns its length or -1. */
static ssize_t
host_site_parse(const char *in, char *buf, const char **why)
{
	const char	*s, *a, *colon, *base;
	size_t		 len, alen, i, blen, nlabels;
	unsigned long	 port;
	unsigned char	 c;

	if (in == NULL) {
		*why = R_EMPTY;
		return -1;
	}

	s = in;
	len = strlen(in);
	while (len > 0 && host_isspace((unsigned char)s[0])) {
		s++;
		len--;
	}
	while (len > 0 && host_isspace((unsigned char)s[len - 1]))
		len--;
	if (len == 0) {
		*why = R_EMPTY;
		return -1;
	}
	/* Controls and blanks anywhere, even in a URL path we would drop. */
	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f || c == ' ') {
			*why = host_badbyte(c);
			return -1;
		}
	}

	host_site_authority(s, len, &a, &alen);
	if (host_memchr(a, alen, '@') != NULL) {
		*why = R_USERINFO;
		return -1;
	}
	if (host_memchr(a, alen, '%') != NULL) {
		*why = R_PERCENT;
		return -1;
	}
	if (alen > 0 && a[0] == '[') {
		*why = R_IP;
		return -1;
	}
	if ((colon = host_memchr(a, alen, ':')) != NULL) {
		if (host_memchr(colon + 1, alen - (colon + 1 - a), ':') !=
		    NULL) {
			*why = host_is_ip6(a, alen) ? R_IP : R_COLON;
			return -1;
		}
		/* An empty port is allowed, as URL parsers do. */
		port = 0;
		for (i = colon + 1 - a; i < alen; i++) {
			c = (unsigned char)a[i];
			if (!host_isdigit(c)) {
				*why = R_PORT;
				return -1;
			}
			port = port * 10 + (c - '0');
			if (port > 65535) {
				*why = R_PORT;
				return -1;
			}
		}
		alen = colon - a;
	}

	while (alen > 0 && a[alen - 1] == '.')
		alen--;
	if (alen == 0) {
		*why = R_EMPTY;
		return -1;
	}
	if (alen > HOST_NAME_MAX_LEN) {
		*why = R_TOOLONG;
		return -1;
	}
	host_put(a, alen, buf);

	base = buf;
	blen = alen;
	if (buf[0] == '*') {
		if (alen == 1) {
			*why = R_WILDALL;
			return -1;
		}
		if (buf[1] != '.') {
			*why = R_WILDPOS;
			return -1;
		}
		base = buf + 2;
		blen = alen - 2;
	}
	if (host_check_labels(base, blen, &nlabels, why) != 0)
		return -1;
	if (base != buf && nlabels < 2) {
		*why = R_WILDSHORT;
		return -1;
	}
	if (host_site_policy(buf, base, blen, why) != 0)
		return -1;
	return alen;
}

/*
 * The result goes through a local buffer so that out may be in: nothing
 * is written to out before all of in has been read.  out is cleared on
 * failure.
 */
static int
host_output(ssize_t len, const char *buf, char *out, size_t outlen,
    const char **why)
{
	if (len >= 0 && (out == NULL || outlen <= (size_t)len)) {
		*why = R_BUF;
		len = -1;
	}
	if (len < 0) {
		if (out != NULL && outlen > 0)
			out[0] = '\0';
		return -1;
	}
	memcpy(out, buf, len);
	out[len] = '\0';
	return 0;
}

int
host_site_normalize(const char *in, char *out, size_t outlen,
    const char **why)
{
	char		 buf[HOST_BUF_LEN];
	const char	*dummy;

	if (why == NULL)
		why = &dummy;
	return host_output(host_site_parse(in, buf, why), buf, out, outlen,
	    why);
}

/* Target host into buf (HOST_BUF_LEN bytes); returns its length or -1. */
static ssize_t
host_target_parse(const char *in, char *buf, int *is_ip, const char **why)
{
	size_t		 len, i, nlabels;
	unsigned char	 c;

	if (in == NULL || in[0] == '\0') {
		*why = R_EMPTY;
		return -1;
	}

	len = strlen(in);
	for (i = 0; i < len; i++) {
		c = (unsigned char)in[i];
		if (c < 0x21 || c >= 0x7f) {
			*why = host_badbyte(c);
			return -1;
		}
	}
	if (host_memchr(in, len, '@') != NULL) {
		*why = R_USERINFO;
		return -1;
	}
	if (host_memchr(in, len, '%') != NULL) {
		*why = host_memchr(in, len, ':') != NULL ? R_ZONE : R_PERCENT;
		return -1;
	}

	if (in[0] == '[') {
		if (len < 2 || in[len - 1] != ']' ||
		    host_memchr(in + 1, len - 2, '[') != NULL ||
		    host_memchr(in + 1, len - 2, ']') != NULL ||
		    !host_is_ip6(in + 1, len - 2)) {
			*why = R_BRACKET;
			return -1;
		}
		*is_ip = 1;
		return host_put(in + 1, len - 2, buf);
	}
	if (host_memchr(in, len, '[') != NULL ||
	    host_memchr(in, len, ']') != NULL) {
		*why = R_BRACKET;
		return -1;
	}
	if (host_memchr(in, len, ':') != NULL) {
		if (!host_is_ip6(in, len)) {
			*why = R_COLON;
			return -1;
		}
		*is_ip = 1;
		return host_put(in, len, buf);
	}

	while (len > 0 && in[len - 1] == '.')
		len--;
	if (len == 0) {
		*why = R_EMPTY;
		return -1;
	}
	if (len > HOST_NAME_MAX_LEN) {
		*why = R_TOOLONG;
		return -1;
	}
	host_put(in, len, buf);
	if (host_memchr(buf, len, '*') != NULL) {
		*why = R_WILDTARGET;
		return -1;
	}
	if (host_check_labels(buf, len, &nlabels, why) != 0)
		return -1;
	if (host_is_ip4(buf, len))
		*is_ip = 1;
	else if (host_ends_in_number(buf, len)) {
		*why = R_NUMERIC;
		return -1;
	}
	return len;
}

int
host_target_normalize(const char *in, char *out, size_t outlen,
    int *is_ip, const char **why)
{
	char		 buf[HOST_BUF_LEN];
	const char	*dummy;
	int		 dummy_ip, ip = 0;

	if (why == NULL)
		why = &dummy;
	if (is_ip == NULL)
		is_ip = &dummy_ip;
	if (host_output(host_target_parse(in, buf, &ip, why), buf, out,
	    outlen, why) != 0) {
		*is_ip = 0;
		return -1;
	}
	*is_ip = ip;
	return 0;
}

int
host_match(const char *pattern, const char *host)
{
	const char	*base;
	size_t		 plen, hlen, blen;

	if (pattern == NULL || host == NULL)
		return 0;
	plen = strlen(pattern);
	hlen = strlen(host);
	while (plen > 0 && pattern[plen - 1] == '.')
		plen--;
	while (hlen > 0 && host[hlen - 1] == '.')
		hlen--;
	if (plen == 0 || hlen == 0)
		return 0;

	if (plen >= 2 && pattern[0] == '*' && pattern[1] == '.') {
		base = pattern + 2;
		blen = plen - 2;
		if (blen == 0)
			return 0;
		if (hlen == blen)
			return host_eq(host, base, blen);
		/* At least one character before the dot: no empty label. */
		return hlen > blen + 1 && host[hlen - blen - 1] == '.' &&
		    host_eq(host + hlen - blen, base, blen);
	}
	return plen == hlen && host_eq(pattern, host, plen);
}

int
host_match_list(char *const *patterns, size_t n, const char *host)
{
	size_t	i;

	if (patterns == NULL || host == NULL)
		return -1;
	if (n > INT_MAX)
		n = INT_MAX;
	for (i = 0; i < n; i++) {
		if (patterns[i] != NULL && host_match(patterns[i], host))
			return (int)i;
	}
	return -1;
}
