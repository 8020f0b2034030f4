/*
 * Address classification for the allowlist proxy (SSRF guard): which
 * resolved addresses may be dialled, and the helpers the proxy needs to
 * connect to exactly the address that passed.  No I/O, no allocation.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"

#define IN4(a, b, c, d)	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			    (uint32_t)(c) << 8 | (uint32_t)(d))

/* 1 when a (host order) lies in net/bits. */
static int
in4_net(uint32_t a, uint32_t net, int bits)
{
	uint32_t	mask;

	mask = bits == 0 ? 0 : 0xffffffffU << (32 - bits);
	return (a & mask) == net;
}

/*
 * Classify an IPv4 address given in host order.  Exact metadata addresses
 * come first so that they win over the range around them.
 *
 * Left PUBLIC on purpose: 198.18.0.0/15 (benchmarking; the tests use it as
 * "the internet"), the documentation ranges 192.0.2.0/24, 198.51.100.0/24
 * and 203.0.113.0/24 (nothing legitimate lives there, and nothing local
 * either), and the deprecated 6to4 relay anycast 192.88.99.0/24.
 */
static enum addr_class
classify4(uint32_t a)
{
	if (a == IN4(169, 254, 169, 254) ||	/* AWS, GCP, Azure, ... */
	    a == IN4(100, 100, 100, 200) ||	/* Alibaba Cloud */
	    a == IN4(168, 63, 129, 16) ||	/* Azure wireserver */
	    a == IN4(192, 0, 0, 192))		/* Oracle Cloud */
		return ADDR_METADATA;

	if (in4_net(a, IN4(0, 0, 0, 0), 8))
		return ADDR_UNSPECIFIED;
	if (in4_net(a, IN4(127, 0, 0, 0), 8))
		return ADDR_LOOPBACK;
	if (in4_net(a, IN4(169, 254, 0, 0), 16))
		return ADDR_LINKLOCAL;
	if (a == IN4(255, 255, 255, 255))
		return ADDR_BROADCAST;
	if (in4_net(a, IN4(224, 0, 0, 0), 4))
		return ADDR_MULTICAST;
	if (in4_net(a, IN4(240, 0, 0, 0), 4))
		return ADDR_RESERVED;
	if (in4_net(a, IN4(192, 0, 0, 0), 24))	/* IETF protocol assignments */
		return ADDR_RESERVED;

	if (in4_net(a, IN4(10, 0, 0, 0), 8) ||
	    in4_net(a, IN4(172, 16, 0, 0), 12) ||
	    in4_net(a, IN4(192, 168, 0, 0), 16))
		return ADDR_PRIVATE;
	if (in4_net(a, IN4(100, 64, 0, 0), 10))
		return ADDR_CGNAT;

	return ADDR_PUBLIC;
}

/* Big-endian 32-bit word i (0 to 3) of an IPv6 address. */
static uint32_t
word6(const uint8_t *b, int i)
{
	b += 4 * i;
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	    (uint32_t)b[2] << 8 | (uint32_t)b[3];
}

/*
 * Classify an IPv6 address.  Forms that carry an IPv4 address are judged by
 * that address, so ::ffff:127.0.0.1 is loopback and 2002:a9fe:a9fe:: is
 * the metadata endpoint.  Everything outside 2000::/3 that has no meaning
 * of its own is unassigned by IANA and RESERVED: it is never the public
 * internet, and refusing it also closes odd forms such as the SIIT
 * ::ffff:0:a.b.c.d.  2001:db8::/32 (documentation) and 2001:2::/48
 * (benchmarking) stay PUBLIC, like their IPv4 counterparts.
 */
static enum addr_class
classify6(const uint8_t *b)
{
	uint32_t	w0, w1, w2, w3;

	w0 = word6(b, 0);
	w1 = word6(b, 1);
	w2 = word6(b, 2);
	w3 = word6(b, 3);

	/* fd00:ec2::254, the AWS instance metadata service over IPv6 */
	if (w0 == 0xfd000ec2 && w1 == 0 && w2 == 0 && w3 == 0x254)
		return ADDR_METADATA;

	if (w0 == 0 && w1 == 0) {
		if (w2 == 0) {
			if (w3 == 0)
				return ADDR_UNSPECIFIED;
			if (w3 == 1)
				return ADDR_LOOPBACK;
			return classify4(w3);		/* ::a.b.c.d */
		}
		if (w2 == 0xffff)
			return classify4(w3);		/* ::ffff:a.b.c.d */
		return ADDR_RESERVED;
	}

	if (w0 == 0x0064ff9b) {
		if (w1 == 0 && w2 == 0)
			return classify4(w3);		/* 64:ff9b::/96 */
		if ((w1 >> 16) == 0x0001)
			return ADDR_TRANSLATED;		/* 64:ff9b:1::/48 */
		return ADDR_RESERVED;
	}

	if ((w0 >> 16) == 0x2002)			/* 6to4 */
		return classify4(w0 << 16 | w1 >> 16);
	if (w0 == 0x20010000)				/* Teredo */
		return ADDR_TRANSLATED;

	if (w0 == 0x01000000 && w1 == 0)		/* 100::/64 discard */
		return ADDR_RESERVED;
	if ((w0 & 0xffc00000) == 0xfe800000)
		return ADDR_LINKLOCAL;
	if ((w0 & 0xffc00000) == 0xfec00000)		/* old site-local */
		return ADDR_RESERVED;
	if ((w0 & 0xff000000) == 0xff000000)
		return ADDR_MULTICAST;
	if ((w0 & 0xfe000000) == 0xfc000000)
		return ADDR_ULA;

	if ((w0 & 0xe0000000) != 0x20000000)		/* not 2000::/3 */
		return ADDR_RESERVED;
	return ADDR_PUBLIC;
}

enum addr_class
addr_classify(const struct sockaddr *sa)
{
	struct sockaddr_in	sin;
	struct sockaddr_in6	sin6;

	if (sa == NULL)
		return ADDR_BAD;
	switch (sa->sa_family) {
	case AF_INET:
		memcpy(&sin, sa, sizeof sin);
		return classify4(ntohl(sin.sin_addr.s_addr));
	case AF_INET6:
		memcpy(&sin6, sa, sizeof sin6);
		return classify6(sin6.sin6_addr.s6_addr);
	default:
		return ADDR_BAD;
	}
}

int
addr_permitted(enum addr_class class, int allow_private)
{
	switch (class) {
	case ADDR_PUBLIC:
		return 1;
	case ADDR_PRIVATE:
	case ADDR_CGNAT:
	case ADDR_ULA:
		return allow_private != 0;
	default:
		return 0;
	}
}

const char *
addr_class_name(enum addr_class class)
{
	switch (class) {
	case ADDR_PUBLIC:
		return "public";
	case ADDR_PRIVATE:
		return "private network";
	case ADDR_CGNAT:
		return "shared address space (CGNAT)";
	case ADDR_ULA:
		return "unique local IPv6";
	case ADDR_LOOPBACK:
		return "loopback";
	case ADDR_UNSPECIFIED:
		return "unspecified";
	case ADDR_LINKLOCAL:
		return "link-local";
	case ADDR_MULTICAST:
		return "multicast";
	case ADDR_BROADCAST:
		return "broadcast";
	case ADDR_RESERVED:
		return "reserved";
	case ADDR_METADATA:
		return "cloud metadata endpoint";
	case ADDR_TRANSLATED:
		return "translated IPv6 form that hides its IPv4 address";
	case ADDR_BAD:
		return "not an IP address";
	}
	return "unknown";
}

/*
 * Reduce an address to what identifies it: 4 bytes for IPv4 and for
 * IPv4-mapped IPv6, 16 bytes otherwise.  Returns the length, 0 if not IP.
 */
static size_t
ip_key(const struct sockaddr *sa, uint8_t *key)
{
	static const uint8_t	mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};
	struct sockaddr_in	sin;
	struct sockaddr_in6	sin6;

	if (sa == NULL)
		return 0;
	switch (sa->sa_family) {
	case AF_INET:
		memcpy(&sin, sa, sizeof sin);
		memcpy(key, &sin.sin_addr, 4);
		return 4;
	case AF_INET6:
		memcpy(&sin6, sa, sizeof sin6);
		if (memcmp(sin6.sin6_addr.s6_addr, mapped, 12) == 0) {
			memcpy(key, sin6.sin6_addr.s6_addr + 12, 4);
			return 4;
		}
		memcpy(key, sin6.sin6_addr.s6_addr, 16);
		return 16;
	default:
		return 0;
	}
}

int
addr_same_ip(const struct sockaddr *a, const struct sockaddr *b)
{
	uint8_t	ka[16], kb[16];
	size_t	na, nb;

	na = ip_key(a, ka);
	nb = ip_key(b, kb);
	return na != 0 && na == nb && memcmp(ka, kb, na) == 0;
}

void
addr_format(const struct sockaddr *sa, char *buf, size_t len)
{
	struct sockaddr_in	sin;
	struct sockaddr_in6	sin6;
	const char		*s = NULL;
	socklen_t		 n;

	if (buf == NULL || len == 0)
		return;
	/* inet_ntop takes a socklen_t; an address never needs more */
	n = len > INET6_ADDRSTRLEN ? INET6_ADDRSTRLEN : (socklen_t)len;
	switch (sa == NULL ? AF_UNSPEC : sa->sa_family) {
	case AF_INET:
		memcpy(&sin, sa, sizeof sin);
		s = inet_ntop(AF_INET, &sin.sin_addr, buf, n);
		break;
	case AF_INET6:
		memcpy(&sin6, sa, sizeof sin6);
		s = inet_ntop(AF_INET6, &sin6.sin6_addr, buf, n);
		break;
	default:
		snprintf(buf, len, "?");
		return;
	}
	if (s == NULL)
		buf[0] = '\0';
}
