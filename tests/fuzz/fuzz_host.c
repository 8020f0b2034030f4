/*
 * libFuzzer target for host.c: feeds the input to both normalisers, the
 * IP-literal test and the matcher, and aborts when an invariant breaks
 * (stored forms are stable, lowercase, without a trailing dot, and match
 * themselves).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check(int ok)
{
	if (!ok)
		abort();
}

static int
is_lower_host_char(unsigned char c, int colon)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	    c == '-' || c == '_' || c == '.' || (colon && c == ':');
}

static void
check_site(const char *in)
{
	char		 out[HOST_BUF_LEN], again[HOST_BUF_LEN];
	char		 sub[HOST_BUF_LEN + 2], tgt[HOST_BUF_LEN];
	const char	*why = NULL, *base;
	size_t		 len, i;
	int		 is_ip = -1;

	if (host_site_normalize(in, out, sizeof out, &why) != 0) {
		check(why != NULL && why[0] != '\0');
		check(out[0] == '\0');
		return;
	}
	len = strlen(out);
	check(len > 0 && len <= HOST_NAME_MAX_LEN);
	check(out[len - 1] != '.' && out[0] != '.');
	base = out;
	if (out[0] == '*') {
		check(out[1] == '.');
		base = out + 2;
	}
	for (i = 0; base[i] != '\0'; i++)
		check(is_lower_host_char((unsigned char)base[i], 0));
	check(!host_is_ip_literal(out));
	check(!host_is_ip_literal(base));

	check(host_site_normalize(out, again, sizeof again, &why) == 0);
	check(strcmp(out, again) == 0);

	if (base == out) {
		check(host_match(out, out) == 1);
		check(host_target_normalize(out, tgt, sizeof tgt, &is_ip,
		    &why) == 0);
		check(strcmp(out, tgt) == 0 && is_ip == 0);
	} else {
		check(host_match(out, base) == 1);
		sub[0] = 'x';
		sub[1] = '.';
		memcpy(sub + 2, base, strlen(base) + 1);
		check(host_match(out, sub) == 1);
		check(host_match(base, sub) == 0);
	}
}

static void
check_target(const char *in)
{
	char		 out[HOST_BUF_LEN], again[HOST_BUF_LEN];
	const char	*why = NULL;
	size_t		 len, i;
	int		 is_ip = -1, is_ip2 = -1;

	if (host_target_normalize(in, out, sizeof out, &is_ip, &why) != 0) {
		check(why != NULL && why[0] != '\0');
		check(out[0] == '\0' && is_ip == 0);
		return;
	}
	check(is_ip == 0 || is_ip == 1);
	len = strlen(out);
	check(len > 0 && len <= HOST_NAME_MAX_LEN);
	check(out[len - 1] != '.');
	for (i = 0; i < len; i++)
		check(is_lower_host_char((unsigned char)out[i], is_ip));
	check(is_ip == host_is_ip_literal(out));

	check(host_target_normalize(out, again, sizeof again, &is_ip2,
	    &why) == 0);
	check(strcmp(out, again) == 0 && is_ip == is_ip2);
	if (!is_ip)
		check(host_match(out, out) == 1);
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Independent check of one host_match answer. */
static void
check_match(const char *p, const char *h)
{
	size_t	plen = strlen(p), hlen = strlen(h), i;
	int	m = host_match(p, h);

	check(m == 0 || m == 1);
	while (hlen > 0 && h[hlen - 1] == '.')
		hlen--;
	while (plen > 0 && p[plen - 1] == '.')
		plen--;
	if (!m)
		return;
	if (plen >= 2 && p[0] == '*' && p[1] == '.') {
		p += 2;
		plen -= 2;
		check(plen > 0 && hlen >= plen);
		if (hlen > plen)
			check(h[hlen - plen - 1] == '.');
		h += hlen - plen;
		hlen = plen;
	}
	check(plen == hlen);
	for (i = 0; i < plen; i++)
		check(lower((unsigned char)p[i]) == lower((unsigned char)h[i]));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*buf, *a, *b, *list[3];
	char	 site[HOST_BUF_LEN];
	size_t	 half;
	int	 idx;

	buf = malloc(size + 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';

	check_site(buf);
	check_target(buf);
	check(host_is_ip_literal(buf) == 0 || host_is_ip_literal(buf) == 1);

	/* Pattern and host from the two halves of the input. */
	half = size / 2;
	a = malloc(half + 1);
	b = malloc(size - half + 1);
	if (a != NULL && b != NULL) {
		memcpy(a, data, half);
		a[half] = '\0';
		memcpy(b, data + half, size - half);
		b[size - half] = '\0';
		check_match(a, b);
		check_match(b, a);
		check_match(buf, buf);

		list[0] = a;
		list[1] = "*.example.com";
		list[2] = host_site_normalize(buf, site, sizeof site,
		    NULL) == 0 ? site : NULL;
		idx = host_match_list(list, 3, b);
		check(idx >= -1 && idx <= 2);
		if (idx >= 0)
			check(host_match(list[idx], b) == 1);
		if (list[2] != NULL && site[0] != '*')
			check(host_match_list(list, 3, site) >= 0);
	}
	free(a);
	free(b);
	free(buf);
	return 0;
}
