/*
 * Unit tests for addr.c: a table of addresses at every range edge with
 * their class and whether they may be dialled with and without
 * allowPrivate, then same-address comparison and formatting.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/socket.h>
#include <sys/un.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <string.h>

#include "addr.h"

#define TABLE_MIN	60

struct addr_case {
	const char	*in;
	enum addr_class	 class;
	int		 perm;		/* permitted, allow_private = 0 */
	int		 perm_private;	/* permitted, allow_private = 1 */
};

#define PUB(s)		{ s, ADDR_PUBLIC, 1, 1 }
#define PRIV(s, c)	{ s, c, 0, 1 }
#define NEVER(s, c)	{ s, c, 0, 0 }

static const struct addr_case cases[] = {
	/* 0.0.0.0/8 */
	NEVER("0.0.0.0", ADDR_UNSPECIFIED),
	NEVER("0.0.0.1", ADDR_UNSPECIFIED),
	NEVER("0.255.255.255", ADDR_UNSPECIFIED),
	PUB("1.0.0.0"),
	PUB("8.8.8.8"),
	/* 10/8 */
	PUB("9.255.255.255"),
	PRIV("10.0.0.0", ADDR_PRIVATE),
	PRIV("10.1.2.3", ADDR_PRIVATE),
	PRIV("10.255.255.255", ADDR_PRIVATE),
	PUB("11.0.0.0"),
	/* 100.64/10 and the Alibaba metadata address inside it */
	PUB("100.63.255.255"),
	PRIV("100.64.0.0", ADDR_CGNAT),
	PRIV("100.100.100.199", ADDR_CGNAT),
	NEVER("100.100.100.200", ADDR_METADATA),
	PRIV("100.100.100.201", ADDR_CGNAT),
	PRIV("100.127.255.255", ADDR_CGNAT),
	PUB("100.128.0.0"),
	/* 127/8 */
	PUB("126.255.255.255"),
	NEVER("127.0.0.0", ADDR_LOOPBACK),
	NEVER("127.0.0.1", ADDR_LOOPBACK),
	NEVER("127.255.255.255", ADDR_LOOPBACK),
	PUB("128.0.0.0"),
	/* Azure wireserver */
	PUB("168.63.129.15"),
	NEVER("168.63.129.16", ADDR_METADATA),
	PUB("168.63.129.17"),
	/* 169.254/16 and the metadata address inside it */
	PUB("169.253.255.255"),
	NEVER("169.254.0.0", ADDR_LINKLOCAL),
	NEVER("169.254.169.253", ADDR_LINKLOCAL),
	NEVER("169.254.169.254", ADDR_METADATA),
	NEVER("169.254.169.255", ADDR_LINKLOCAL),
	NEVER("169.254.255.255", ADDR_LINKLOCAL),
	PUB("169.255.0.0"),
	/* 172.16/12 */
	PUB("172.15.255.255"),
	PRIV("172.16.0.0", ADDR_PRIVATE),
	PRIV("172.31.255.255", ADDR_PRIVATE),
	PUB("172.32.0.0"),
	/* 192.0.0.0/24 and the Oracle metadata address inside it */
	PUB("191.255.255.255"),
	NEVER("192.0.0.0", ADDR_RESERVED),
	NEVER("192.0.0.191", ADDR_RESERVED),
	NEVER("192.0.0.192", ADDR_METADATA),
	NEVER("192.0.0.193", ADDR_RESERVED),
	NEVER("192.0.0.255", ADDR_RESERVED),
	PUB("192.0.1.0"),
	/* documentation ranges stay public */
	PUB("192.0.2.1"),
	PUB("198.51.100.1"),
	PUB("203.0.113.1"),
	/* 192.168/16 */
	PUB("192.167.255.255"),
	PRIV("192.168.0.0", ADDR_PRIVATE),
	PRIV("192.168.1.1", ADDR_PRIVATE),
	PRIV("192.168.255.255", ADDR_PRIVATE),
	PUB("192.169.0.0"),
	/* 198.18/15 is "the internet" for the tests */
	PUB("198.17.255.255"),
	PUB("198.18.0.0"),
	PUB("198.18.0.2"),
	PUB("198.19.255.255"),
	PUB("198.20.0.0"),
	/* 224/4, 240/4, broadcast */
	PUB("223.255.255.255"),
	NEVER("224.0.0.0", ADDR_MULTICAST),
	NEVER("224.0.0.251", ADDR_MULTICAST),
	NEVER("239.255.255.255", ADDR_MULTICAST),
	NEVER("240.0.0.0", ADDR_RESERVED),
	NEVER("255.255.255.254", ADDR_RESERVED),
	NEVER("255.255.255.255", ADDR_BROADCAST),

	/* IPv6 specials */
	NEVER("::", ADDR_UNSPECIFIED),
	NEVER("::1", ADDR_LOOPBACK),
	/* IPv4-compatible ::a.b.c.d */
	NEVER("::2", ADDR_UNSPECIFIED),
	NEVER("::127.0.0.1", ADDR_LOOPBACK),
	NEVER("::169.254.169.254", ADDR_METADATA),
	PRIV("::10.0.0.1", ADDR_PRIVATE),
	PUB("::198.18.0.2"),
	NEVER("::255.255.255.255", ADDR_BROADCAST),
	NEVER("::1:0:0", ADDR_RESERVED),
	/* IPv4-mapped ::ffff:a.b.c.d */
	NEVER("::fffe:ffff:ffff", ADDR_RESERVED),
	NEVER("::ffff:0.0.0.0", ADDR_UNSPECIFIED),
	NEVER("::ffff:127.0.0.1", ADDR_LOOPBACK),
	NEVER("::ffff:169.254.169.254", ADDR_METADATA),
	NEVER("::ffff:100.100.100.200", ADDR_METADATA),
	NEVER("::ffff:168.63.129.16", ADDR_METADATA),
	NEVER("::ffff:192.0.0.192", ADDR_METADATA),
	NEVER("::ffff:169.254.0.1", ADDR_LINKLOCAL),
	PRIV("::ffff:10.1.2.3", ADDR_PRIVATE),
	PRIV("::ffff:192.168.0.1", ADDR_PRIVATE),
	PRIV("::ffff:100.64.0.1", ADDR_CGNAT),
	PUB("::ffff:198.18.0.2"),
	NEVER("::ffff:255.255.255.255", ADDR_BROADCAST),
	NEVER("::1:0:0:0", ADDR_RESERVED),
	/* SIIT ::ffff:0:a.b.c.d and the rest of ::/8 */
	NEVER("::ffff:0:7f00:1", ADDR_RESERVED),
	NEVER("0:0:0:1::1", ADDR_RESERVED),
	NEVER("ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_RESERVED),
	/* NAT64 64:ff9b::/96 */
	NEVER("64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_RESERVED),
	NEVER("64:ff9b::", ADDR_UNSPECIFIED),
	NEVER("64:ff9b::127.0.0.1", ADDR_LOOPBACK),
	NEVER("64:ff9b::169.254.169.254", ADDR_METADATA),
	NEVER("64:ff9b::100.100.100.200", ADDR_METADATA),
	PRIV("64:ff9b::192.168.1.1", ADDR_PRIVATE),
	PRIV("64:ff9b::172.16.0.1", ADDR_PRIVATE),
	PUB("64:ff9b::198.18.0.2"),
	PUB("64:ff9b::8.8.8.8"),
	NEVER("64:ff9b::255.255.255.255", ADDR_BROADCAST),
	NEVER("64:ff9b::1:0:0", ADDR_RESERVED),
	/* local-use NAT64 64:ff9b:1::/48 */
	NEVER("64:ff9b:0:ffff:ffff:ffff:ffff:ffff", ADDR_RESERVED),
	NEVER("64:ff9b:1::", ADDR_TRANSLATED),
	NEVER("64:ff9b:1::1", ADDR_TRANSLATED),
	NEVER("64:ff9b:1:ffff:ffff:ffff:ffff:ffff", ADDR_TRANSLATED),
	NEVER("64:ff9b:2::", ADDR_RESERVED),
	/* 100::/64 discard */
	NEVER("ff:ffff:ffff:ffff:ffff:ffff:ffff:fffe", ADDR_RESERVED),
	NEVER("100::", ADDR_RESERVED),
	NEVER("100::1", ADDR_RESERVED),
	NEVER("100::ffff:ffff:ffff:ffff", ADDR_RESERVED),
	NEVER("100:0:0:1::", ADDR_RESERVED),
	/* 2000::/3 starts the global unicast space */
	NEVER("1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_RESERVED),
	PUB("2000::"),
	PUB("2000:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
	/* Teredo 2001::/32 */
	NEVER("2001::", ADDR_TRANSLATED),
	NEVER("2001::1", ADDR_TRANSLATED),
	NEVER("2001:0:4136:e378:8000:63bf:3fff:fdd2", ADDR_TRANSLATED),
	NEVER("2001:0:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_TRANSLATED),
	PUB("2001:1::"),
	PUB("2001:2::1"),
	PUB("2001:db8::1"),
	PUB("2001:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
	/* 6to4 2002::/16, IPv4 in bits 16-47 */
	NEVER("2002::", ADDR_UNSPECIFIED),
	NEVER("2002:7f00:1::", ADDR_LOOPBACK),
	NEVER("2002:7f00:1::1", ADDR_LOOPBACK),
	NEVER("2002:a9fe:a9fe::1", ADDR_METADATA),
	NEVER("2002:a83f:8110::", ADDR_METADATA),
	NEVER("2002:c000:c0::", ADDR_METADATA),
	PRIV("2002:a00:1::1", ADDR_PRIVATE),
	PRIV("2002:6440:1::", ADDR_CGNAT),
	PUB("2002:c612:2::1"),
	PUB("2002:808:808:1234:5678:9abc:def0:1"),
	NEVER("2002:e000:1::", ADDR_MULTICAST),
	NEVER("2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_BROADCAST),
	PUB("2003::"),
	PUB("2606:4700:4700::1111"),
	PUB("3fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"),
	NEVER("4000::", ADDR_RESERVED),
	/* fc00::/7 and the AWS metadata address inside it */
	NEVER("fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_RESERVED),
	PRIV("fc00::", ADDR_ULA),
	PRIV("fd00::1", ADDR_ULA),
	PRIV("fd00:ec2::253", ADDR_ULA),
	NEVER("fd00:ec2::254", ADDR_METADATA),
	PRIV("fd00:ec2::255", ADDR_ULA),
	PRIV("fd00:ec2:0:1::254", ADDR_ULA),
	PRIV("fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_ULA),
	NEVER("fe00::", ADDR_RESERVED),
	/* fe80::/10 */
	NEVER("fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_RESERVED),
	NEVER("fe80::", ADDR_LINKLOCAL),
	NEVER("fe80::1", ADDR_LINKLOCAL),
	NEVER("febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_LINKLOCAL),
	/* fec0::/10 */
	NEVER("fec0::", ADDR_RESERVED),
	NEVER("feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_RESERVED),
	/* ff00::/8 */
	NEVER("ff00::", ADDR_MULTICAST),
	NEVER("ff02::1", ADDR_MULTICAST),
	NEVER("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", ADDR_MULTICAST),
};

/* Parse s into ss with the given port; fails the test if it is no IP. */
static void
make_addr(const char *s, uint16_t port, struct sockaddr_storage *ss)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof *ss);
	if (strchr(s, ':') != NULL) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, s, &sin6->sin6_addr) != 1)
			fail_msg("bad IPv6 test address %s", s);
	} else {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		if (inet_pton(AF_INET, s, &sin->sin_addr) != 1)
			fail_msg("bad IPv4 test address %s", s);
	}
}

static int
same(const char *a, uint16_t pa, const char *b, uint16_t pb)
{
	struct sockaddr_storage	sa, sb;

	make_addr(a, pa, &sa);
	make_addr(b, pb, &sb);
	return addr_same_ip((struct sockaddr *)&sa, (struct sockaddr *)&sb);
}

static void
test_table(void **state)
{
	struct sockaddr_storage	 ss;
	const struct addr_case	*c;
	enum addr_class		 got;
	size_t			 i, n = sizeof cases / sizeof cases[0];
	int			 bad = 0;

	(void)state;
	assert_true(n >= TABLE_MIN);
	for (i = 0; i < n; i++) {
		c = &cases[i];
		make_addr(c->in, 443, &ss);
		got = addr_classify((struct sockaddr *)&ss);
		if (got != c->class) {
			print_error("%s: class %s, want %s\n", c->in,
			    addr_class_name(got), addr_class_name(c->class));
			bad++;
		}
		if (addr_permitted(got, 0) != c->perm ||
		    addr_permitted(got, 1) != c->perm_private) {
			print_error("%s: permitted %d/%d, want %d/%d\n",
			    c->in, addr_permitted(got, 0),
			    addr_permitted(got, 1), c->perm, c->perm_private);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void
test_not_ip(void **state)
{
	struct sockaddr_un	sun;
	struct sockaddr_storage	ss;

	(void)state;
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, "/run/spacebox.sock");
	assert_int_equal(addr_classify((struct sockaddr *)&sun), ADDR_BAD);

	memset(&ss, 0, sizeof ss);
	ss.ss_family = AF_UNSPEC;
	assert_int_equal(addr_classify((struct sockaddr *)&ss), ADDR_BAD);
	assert_int_equal(addr_classify(NULL), ADDR_BAD);

	assert_int_equal(addr_permitted(ADDR_BAD, 0), 0);
	assert_int_equal(addr_permitted(ADDR_BAD, 1), 0);
}

static void
test_permitted(void **state)
{
	enum addr_class	c;
	int		open;

	(void)state;
	for (c = ADDR_PUBLIC; c <= ADDR_BAD; c++) {
		open = c == ADDR_PRIVATE || c == ADDR_CGNAT || c == ADDR_ULA;
		assert_int_equal(addr_permitted(c, 0), c == ADDR_PUBLIC);
		assert_int_equal(addr_permitted(c, 1),
		    c == ADDR_PUBLIC || open);
		/* any true value of allow_private counts */
		assert_int_equal(addr_permitted(c, 7),
		    c == ADDR_PUBLIC || open);
	}
}

static void
test_class_name(void **state)
{
	enum addr_class	c, d;

	(void)state;
	for (c = ADDR_PUBLIC; c <= ADDR_BAD; c++) {
		assert_non_null(addr_class_name(c));
		assert_true(addr_class_name(c)[0] != '\0');
		for (d = ADDR_PUBLIC; d < c; d++)
			assert_string_not_equal(addr_class_name(c),
			    addr_class_name(d));
	}
	assert_string_equal(addr_class_name(ADDR_LOOPBACK), "loopback");
	assert_string_equal(addr_class_name(ADDR_PRIVATE), "private network");
	assert_string_equal(addr_class_name(ADDR_CGNAT),
	    "shared address space (CGNAT)");
	assert_string_equal(addr_class_name(ADDR_ULA), "unique local IPv6");
	assert_string_equal(addr_class_name(ADDR_UNSPECIFIED), "unspecified");
	assert_string_equal(addr_class_name(ADDR_LINKLOCAL), "link-local");
	assert_string_equal(addr_class_name(ADDR_MULTICAST), "multicast");
	assert_string_equal(addr_class_name(ADDR_BROADCAST), "broadcast");
	assert_string_equal(addr_class_name(ADDR_RESERVED), "reserved");
	assert_string_equal(addr_class_name(ADDR_METADATA),
	    "cloud metadata endpoint");
	assert_string_equal(addr_class_name(ADDR_TRANSLATED),
	    "translated IPv6 form that hides its IPv4 address");
	assert_string_equal(addr_class_name(ADDR_BAD), "not an IP address");
}

static void
test_same_ip(void **state)
{
	struct sockaddr_un	sun;
	struct sockaddr_storage	ss;

	(void)state;
	/* ports never matter */
	assert_int_equal(same("198.18.0.2", 80, "198.18.0.2", 443), 1);
	assert_int_equal(same("198.18.0.2", 443, "198.18.0.3", 443), 0);
	assert_int_equal(same("fd00::1", 80, "fd00::1", 8080), 1);
	assert_int_equal(same("fd00::1", 80, "fd00::2", 80), 0);
	assert_int_equal(same("2001:db8::1", 443, "2001:db8:0:0:0:0:0:1", 443),
	    1);
	/* a mapped address is its IPv4 address, both ways round */
	assert_int_equal(same("::ffff:198.18.0.2", 1, "198.18.0.2", 2), 1);
	assert_int_equal(same("198.18.0.2", 1, "::ffff:198.18.0.2", 2), 1);
	assert_int_equal(same("::ffff:198.18.0.2", 1, "::ffff:198.18.0.2", 1),
	    1);
	assert_int_equal(same("::ffff:198.18.0.2", 1, "198.18.0.3", 1), 0);
	assert_int_equal(same("::ffff:127.0.0.1", 1, "198.18.0.2", 1), 0);
	/* other forms that carry an IPv4 address are different addresses */
	assert_int_equal(same("::198.18.0.2", 1, "198.18.0.2", 1), 0);
	assert_int_equal(same("64:ff9b::198.18.0.2", 1, "198.18.0.2", 1), 0);
	assert_int_equal(same("2002:c612:2::", 1, "198.18.0.2", 1), 0);
	assert_int_equal(same("::ffff:0:198.18.0.2", 1, "198.18.0.2", 1), 0);
	assert_int_equal(same("::ffff:0.0.0.0", 1, "::", 1), 0);
	assert_int_equal(same("0.0.0.0", 1, "::", 1), 0);

	/* not IP: never the same as anything, not even itself */
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	make_addr("198.18.0.2", 443, &ss);
	assert_int_equal(addr_same_ip((struct sockaddr *)&sun,
	    (struct sockaddr *)&sun), 0);
	assert_int_equal(addr_same_ip((struct sockaddr *)&sun,
	    (struct sockaddr *)&ss), 0);
	assert_int_equal(addr_same_ip((struct sockaddr *)&ss,
	    (struct sockaddr *)&sun), 0);
	assert_int_equal(addr_same_ip(NULL, (struct sockaddr *)&ss), 0);
	assert_int_equal(addr_same_ip((struct sockaddr *)&ss, NULL), 0);
}

static void
test_format(void **state)
{
	struct sockaddr_storage	ss;
	struct sockaddr_un	sun;
	char			buf[INET6_ADDRSTRLEN], small[8];
	size_t			i;
	static const char	*round[] = {
		"198.18.0.2", "0.0.0.0", "255.255.255.255", "fd00::1", "::",
		"::1", "::ffff:127.0.0.1", "64:ff9b::c612:2",
		"fd00:ec2::254", "2001:db8::1",
		"ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
	};

	(void)state;
	/* no port, no brackets */
	for (i = 0; i < sizeof round / sizeof round[0]; i++) {
		make_addr(round[i], 8443, &ss);
		memset(buf, 'x', sizeof buf);
		addr_format((struct sockaddr *)&ss, buf, sizeof buf);
		assert_string_equal(buf, round[i]);
	}
	/* the canonical text form */
	make_addr("FD00:0:0:0:0:0:0:0001", 80, &ss);
	addr_format((struct sockaddr *)&ss, buf, sizeof buf);
	assert_string_equal(buf, "fd00::1");

	/* too small a buffer leaves an empty string, never a partial one */
	make_addr("198.18.0.2", 80, &ss);
	memset(small, 'x', sizeof small);
	addr_format((struct sockaddr *)&ss, small, sizeof small);
	assert_string_equal(small, "");
	make_addr("198.18.0.2", 80, &ss);
	addr_format((struct sockaddr *)&ss, buf, sizeof "198.18.0.2");
	assert_string_equal(buf, "198.18.0.2");
	addr_format((struct sockaddr *)&ss, NULL, 0);
	small[0] = 'x';
	addr_format((struct sockaddr *)&ss, small, 0);
	assert_int_equal(small[0], 'x');

	/* not IP */
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	addr_format((struct sockaddr *)&sun, buf, sizeof buf);
	assert_string_equal(buf, "?");
	addr_format(NULL, buf, sizeof buf);
	assert_string_equal(buf, "?");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_not_ip),
		cmocka_unit_test(test_permitted),
		cmocka_unit_test(test_class_name),
		cmocka_unit_test(test_same_ip),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
