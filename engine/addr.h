/*
 * Address classification for the allowlist proxy: after a name resolves,
 * every answer is judged here, and only a public address (or a private
 * one when the policy says allowPrivate) may be dialled.  Pure functions.
 */
#ifndef SPACEBOX_ADDR_H
#define SPACEBOX_ADDR_H

#include <sys/socket.h>

#include <stddef.h>

enum addr_class {
	ADDR_PUBLIC,
	ADDR_PRIVATE,		/* 10/8, 172.16/12, 192.168/16 */
	ADDR_CGNAT,		/* 100.64/10 */
	ADDR_ULA,		/* fc00::/7 */
	ADDR_LOOPBACK,		/* 127/8, ::1 */
	ADDR_UNSPECIFIED,	/* 0.0.0.0/8, :: */
	ADDR_LINKLOCAL,		/* 169.254/16, fe80::/10 */
	ADDR_MULTICAST,		/* 224/4, ff00::/8 */
	ADDR_BROADCAST,		/* 255.255.255.255 */
	ADDR_RESERVED,		/* 240/4, 192.0.0/24, fec0::/10, 100::/64,
				   IPv6 outside 2000::/3 with no other use */
	ADDR_METADATA,		/* cloud metadata endpoints */
	ADDR_TRANSLATED,	/* IPv6 forms whose IPv4 cannot be judged */
	ADDR_BAD		/* not AF_INET or AF_INET6 */
};

/*
 * Classify one address.  IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible
 * (::a.b.c.d), NAT64 (64:ff9b::/96) and 6to4 (2002::/16) are judged by the
 * IPv4 address they carry; Teredo (2001::/32) and local-use NAT64
 * (64:ff9b:1::/48) are ADDR_TRANSLATED.  Metadata endpoints win over the
 * range they sit in (169.254.169.254, fd00:ec2::254, 100.100.100.200,
 * 168.63.129.16, 192.0.0.192), so allowPrivate never opens them.
 * 198.18.0.0/15 and the documentation ranges are ADDR_PUBLIC.  The family
 * decides which sockaddr is read; NULL or another family is ADDR_BAD.
 */
enum addr_class	 addr_classify(const struct sockaddr *);

/*
 * 1 when the proxy may connect to an address of this class: ADDR_PUBLIC
 * always, ADDR_PRIVATE, ADDR_CGNAT and ADDR_ULA only with allow_private.
 */
int		 addr_permitted(enum addr_class, int allow_private);

/* A few words for refusal messages: "loopback", "private network", ... */
const char	*addr_class_name(enum addr_class);

/*
 * 1 when a and b are the same IP address (ports and scope ids ignored);
 * an IPv4-mapped IPv6 address equals its IPv4 address, no other IPv6 form
 * does.  0 when either is NULL or not IP.
 */
int		 addr_same_ip(const struct sockaddr *a, const struct sockaddr *b);

/*
 * The address as text, without port or brackets ("198.18.0.2", "fd00::1").
 * "?" when not IP; an empty string when buf is too small.
 */
void		 addr_format(const struct sockaddr *, char *buf, size_t len);

#endif
