/*
 * Host names for the site list and the allowlist proxy: normalisation,
 * IP-literal detection in every spelling, and label-aligned matching.
 * Pure functions, no allocation, no I/O.
 */
#ifndef SPACEBOX_HOST_H
#define SPACEBOX_HOST_H

#include <stddef.h>

#define HOST_NAME_MAX_LEN	253
#define HOST_LABEL_MAX_LEN	63
#define HOST_BUF_LEN		(HOST_NAME_MAX_LEN + 1)

/*
 * Normalise one site-list entry as a user typed or pasted it: trim
 * surrounding whitespace, take the host out of a pasted URL
 * ("https://API.Example.com/v1?x" -> "api.example.com"), drop a port and
 * trailing dots, lowercase.  A single leading "*." wildcard is kept when
 * at least two labels follow it.  Refused: IP literals of any form,
 * localhost and *.localhost, metadata names, userinfo, spaces, control
 * characters, raw non-ASCII (punycode is required), bad labels.
 *
 * Returns 0 and writes the stored form to out (HOST_BUF_LEN bytes), or -1
 * and points *why at a static reason ("IP literals are not allowed ...").
 */
int	host_site_normalize(const char *in, char *out, size_t outlen,
	    const char **why);

/*
 * Normalise the host part of a proxy target ("Example.COM." ->
 * "example.com"): no wildcard, no URL, no port.  IP literals are accepted
 * here (the proxy classifies the address later); *is_ip is set to 1 when
 * the host is an IP literal in any spelling that inet_aton or inet_pton
 * would accept (decimal, hex, octal, short forms, IPv6 with or without
 * brackets).  Only the syntax is checked: names such as localhost or the
 * metadata names pass here and are refused by the site list and by the
 * address classification.  Zone ids ("%25eth0") are refused.
 */
int	host_target_normalize(const char *in, char *out, size_t outlen,
	    int *is_ip, const char **why);

/*
 * 1 when in is an IP literal in any spelling a resolver or a URL parser
 * might take as one: dotted quad, 2130706433, 0x7f.1, 0177.0.0.1, [::1],
 * fe80::1, ::ffff:1.2.3.4.
 */
int	host_is_ip_literal(const char *in);

/*
 * Label-aligned match of a normalised host against one normalised
 * site-list entry: "*.x.com" matches "x.com" and "a.b.x.com", never
 * "evilx.com" or "x.com.evil.net"; a plain entry matches only itself.
 */
int	host_match(const char *pattern, const char *host);

/* Match against a list; returns the index of the first match or -1. */
int	host_match_list(char *const *patterns, size_t n, const char *host);

#endif
