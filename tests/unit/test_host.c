/*
 * Unit tests for host.c: the site rows of tests/data/proxy-hostile.tsv,
 * then URL forms, lengths, proxy target normalisation and matching.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

#ifndef SB_TEST_DATA
#error "SB_TEST_DATA must name the tests/data directory"
#endif

#define TSV_PATH	SB_TEST_DATA "/proxy-hostile.tsv"
#define SITE_ROWS_MIN	30

struct site_case {
	const char	*in;
	const char	*expect;	/* stored form, NULL for reject */
};

struct target_case {
	const char	*in;
	const char	*expect;	/* NULL for reject */
	int		 is_ip;
};

/* Undo the TSV escapes: \r \n \t \\; \0 is reported as -1. */
static int
unescape(const char *in, char *out, size_t outlen)
{
	size_t	o = 0;

	for (; *in != '\0'; in++) {
		if (o + 1 >= outlen)
			return -1;
		if (*in != '\\' || in[1] == '\0') {
			out[o++] = *in;
			continue;
		}
		switch (*++in) {
		case 'r':
			out[o++] = '\r';
			break;
		case 'n':
			out[o++] = '\n';
			break;
		case 't':
			out[o++] = '\t';
			break;
		case '\\':
			out[o++] = '\\';
			break;
		case '0':
			return -1;
		default:
			out[o++] = '\\';
			out[o++] = *in;
			if (o >= outlen)
				return -1;
			break;
		}
	}
	out[o] = '\0';
	return 0;
}

static int
check_site(const char *id, const char *in, const char *expect)
{
	char		 out[HOST_BUF_LEN];
	const char	*why = NULL;
	int		 rc;

	memset(out, 'X', sizeof out);
	rc = host_site_normalize(in, out, sizeof out, &why);
	if (expect == NULL) {
		if (rc == 0) {
			print_error("%s: \"%s\" accepted as \"%s\", "
			    "expected reject\n", id, in, out);
			return 1;
		}
		if (why == NULL || *why == '\0') {
			print_error("%s: \"%s\" rejected without a reason\n",
			    id, in);
			return 1;
		}
		return 0;
	}
	if (rc != 0) {
		print_error("%s: \"%s\" rejected (%s), expected \"%s\"\n",
		    id, in, why != NULL ? why : "(null)", expect);
		return 1;
	}
	if (strcmp(out, expect) != 0) {
		print_error("%s: \"%s\" -> \"%s\", expected \"%s\"\n",
		    id, in, out, expect);
		return 1;
	}
	return 0;
}

static void
test_site_tsv(void **state)
{
	FILE		*f;
	char		 line[4096], in[1024];
	char		*field[5], *p;
	const char	*expect;
	int		 nrows = 0, nbad = 0, n;

	(void)state;
	f = fopen(TSV_PATH, "r");
	if (f == NULL)
		fail_msg("cannot open %s", TSV_PATH);

	while (fgets(line, sizeof line, f) != NULL) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;
		p = line;
		for (n = 0; n < 5 && p != NULL; n++)
			field[n] = strsep(&p, "\t");
		if (n < 4 || strcmp(field[1], "site") != 0)
			continue;

		nrows++;
		if (unescape(field[2], in, sizeof in) != 0) {
			print_error("%s: input not supported here\n",
			    field[0]);
			nbad++;
			continue;
		}
		if (strcmp(field[3], "reject") == 0)
			expect = NULL;
		else if (strncmp(field[3], "ok:", 3) == 0)
			expect = field[3] + 3;
		else {
			print_error("%s: bad expect \"%s\"\n", field[0],
			    field[3]);
			nbad++;
			continue;
		}
		nbad += check_site(field[0], in, expect);
	}
	fclose(f);

	if (nrows < SITE_ROWS_MIN)
		fail_msg("only %d site rows in %s", nrows, TSV_PATH);
	if (nbad != 0)
		fail_msg("%d of %d site rows failed", nbad, nrows);
}

static const struct site_case site_cases[] = {
	/* URL forms */
	{ "https://example.com:8443/p/a?q=1#frag", "example.com" },
	{ "HTTP://Example.COM./", "example.com" },
	{ "https://example.com#top", "example.com" },
	{ "https://example.com?x", "example.com" },
	{ "http://example.com:80", "example.com" },
	{ "ftp://files.example.com/pub", "files.example.com" },
	{ "example.com/path", "example.com" },
	{ "https://example.com/@someone", "example.com" },
	{ "https://example.com/a%20b", "example.com" },
	{ "https://user:pw@example.com/", NULL },
	{ "https://user@example.com", NULL },
	{ "http://example.com@evil.test/", NULL },
	{ "https://example.com\\@evil.test/", NULL },
	{ "http://[::1]:80/", NULL },
	{ "http://127.0.0.1:8080/", NULL },
	{ "http://2852039166/", NULL },
	{ "http://", NULL },
	{ "https:///x", NULL },
	{ "http:example.com", NULL },
	/* ports */
	{ "example.com:", "example.com" },
	{ "example.com:65535", "example.com" },
	{ "example.com:65536", NULL },
	{ "example.com:http", NULL },
	{ "example.com:80:80", NULL },
	/* whitespace and control characters */
	{ "", NULL },
	{ "   ", NULL },
	{ " \t\r\n", NULL },
	{ "  example.com \r\n", "example.com" },
	{ "exam\x01ple.com", NULL },
	{ "example.com\x7f", NULL },
	{ "ex\tample.com", NULL },
	{ "https://example.com/a b", NULL },
	{ "example.com\x1b[31m", NULL },
	/* separators, percent, odd characters */
	{ "example.com;evil.test", NULL },
	{ "example.com|evil.test", NULL },
	{ "exa%6dple.com", NULL },
	{ "example.com%00", NULL },
	{ "exa\"mple.com", NULL },
	{ "example.com!", NULL },
	/* labels */
	{ "a-.example.com", NULL },
	{ "a.example-.com", NULL },
	{ "a-b.example.com", "a-b.example.com" },
	{ "x_y.example.com", "x_y.example.com" },
	{ ".example.com", NULL },
	{ "example.com..", "example.com" },
	{ "example..", "example" },
	{ ".", NULL },
	{ "123.example.com", "123.example.com" },
	{ "intranet", "intranet" },
	/* wildcards */
	{ "*.example.com.", "*.example.com" },
	{ "*.EXAMPLE.com", "*.example.com" },
	{ "*.co.uk", "*.co.uk" },
	{ "*.", NULL },
	{ "*..example.com", NULL },
	{ "**.example.com", NULL },
	{ "*.*.example.com", NULL },
	{ "*.example.com*", NULL },
	{ "https://*.example.com/", "*.example.com" },
	/* IP literals and names that read as one */
	{ "1.2.3.4", NULL },
	{ "127.1", NULL },
	{ "0177.0.0.1", NULL },
	{ "0x7f000001", NULL },
	{ "0X7F.0.0.1", NULL },
	{ "foo.123", NULL },
	{ "foo.0x1f", NULL },
	{ "foo.0x", NULL },
	{ "foo.0x1g", "foo.0x1g" },
	{ "*.1.2.3", NULL },
	{ "127.0.0.1.", NULL },
	{ "::1", NULL },
	{ "::ffff:127.0.0.1", NULL },
	{ "[::ffff:127.0.0.1]", NULL },
	{ "[fe80::1%25eth0]", NULL },
	/* this machine and metadata */
	{ "LOCALHOST", NULL },
	{ "localhost.", NULL },
	{ "x.localhost", NULL },
	{ "*.x.localhost", NULL },
	{ "*.localhost", NULL },
	{ "localhost.localdomain", NULL },
	{ "*.localdomain", NULL },
	{ "localhost.example.com", "localhost.example.com" },
	{ "metadata", NULL },
	{ "METADATA.google.internal.", NULL },
	{ "*.google.internal", NULL },
	{ "metadata.goog", NULL },
	{ "instance-data", NULL },
	{ "metadata.example.com", "metadata.example.com" },
	/* non-ASCII */
	{ "b\xc3\xbc" "cher.example", NULL },
	{ "https://b\xc3\xbc" "cher.example/", NULL },
	{ "xn--bcher-kva.example", "xn--bcher-kva.example" },
};

static void
test_site_cases(void **state)
{
	size_t	i;
	int	nbad = 0;
	char	id[32];

	(void)state;
	for (i = 0; i < sizeof site_cases / sizeof site_cases[0]; i++) {
		snprintf(id, sizeof id, "site_cases[%zu]", i);
		nbad += check_site(id, site_cases[i].in, site_cases[i].expect);
	}
	assert_int_equal(nbad, 0);
}

static void
expect_why(const char *in, const char *word)
{
	char		 out[HOST_BUF_LEN];
	const char	*why = NULL;

	assert_int_equal(host_site_normalize(in, out, sizeof out, &why), -1);
	assert_non_null(why);
	if (strstr(why, word) == NULL)
		fail_msg("\"%s\": reason \"%s\" does not mention \"%s\"",
		    in, why, word);
}

static void
test_site_reasons(void **state)
{
	(void)state;
	expect_why("b\xc3\xbc" "cher.example", "punycode");
	expect_why("user@example.com", "'@'");
	expect_why("127.0.0.1", "IP");
	expect_why("foo.123", "IP");
	expect_why("*.com", "two labels");
	expect_why("*", "every site");
	expect_why("exa*mple.com", "wildcard");
	expect_why("localhost", "this machine");
	expect_why("metadata.google.internal", "metadata");
	expect_why("example.com,evil.test", "one host name");
	expect_why("exa mple.com", "spaces");
	expect_why("exa%6dple.com", "percent");
	expect_why("", "empty");
}

/* A name of exactly len characters made of 63-character labels. */
static void
make_name(char *buf, size_t len)
{
	size_t	i;

	for (i = 0; i < len; i++)
		buf[i] = (i % 64 == 63) ? '.' : 'a';
	/* Never end on a dot. */
	if (len > 0 && buf[len - 1] == '.')
		buf[len - 1] = 'b';
	buf[len] = '\0';
}

static void
test_site_lengths(void **state)
{
	char	name[512], label[128], in[600], out[HOST_BUF_LEN];
	const char	*why;

	(void)state;
	make_name(name, 253);
	assert_int_equal(strlen(name), 253);
	assert_int_equal(host_site_normalize(name, out, sizeof out, &why), 0);
	assert_string_equal(out, name);

	snprintf(in, sizeof in, "%s.", name);
	assert_int_equal(host_site_normalize(in, out, sizeof out, &why), 0);
	assert_string_equal(out, name);

	snprintf(in, sizeof in, "https://%s:443/", name);
	assert_int_equal(host_site_normalize(in, out, sizeof out, &why), 0);
	assert_string_equal(out, name);

	make_name(name, 254);
	assert_int_equal(host_site_normalize(name, out, sizeof out, &why), -1);
	make_name(name, 400);
	assert_int_equal(host_site_normalize(name, out, sizeof out, &why), -1);

	/* "*." counts: the stored form is what must fit. */
	make_name(name, 251);
	snprintf(in, sizeof in, "*.%s", name);
	assert_int_equal(host_site_normalize(in, out, sizeof out, &why), 0);
	assert_string_equal(out, in);
	make_name(name, 252);
	snprintf(in, sizeof in, "*.%s", name);
	assert_int_equal(host_site_normalize(in, out, sizeof out, &why), -1);

	memset(label, 'a', 63);
	label[63] = '\0';
	snprintf(in, sizeof in, "%s.com", label);
	assert_int_equal(host_site_normalize(in, out, sizeof out, &why), 0);
	assert_string_equal(out, in);
	snprintf(in, sizeof in, "x.%s", label);
	assert_int_equal(host_site_normalize(in, out, sizeof out, &why), 0);

	memset(label, 'a', 64);
	label[64] = '\0';
	snprintf(in, sizeof in, "%s.com", label);
	assert_int_equal(host_site_normalize(in, out, sizeof out, &why), -1);
	snprintf(in, sizeof in, "x.%s", label);
	assert_int_equal(host_site_normalize(in, out, sizeof out, &why), -1);
}

static void
test_site_buffers(void **state)
{
	char		 small[8];
	const char	*why = NULL;
	char		 buf[HOST_BUF_LEN];

	(void)state;
	assert_int_equal(host_site_normalize("example.com", small,
	    sizeof small, &why), -1);
	assert_non_null(why);
	assert_string_equal(small, "");
	assert_int_equal(host_site_normalize("a.com", small, sizeof small,
	    &why), 0);
	assert_string_equal(small, "a.com");
	assert_int_equal(host_site_normalize(NULL, buf, sizeof buf, &why), -1);
	/* why may be NULL. */
	assert_int_equal(host_site_normalize("*", buf, sizeof buf, NULL), -1);

	/* In place. */
	snprintf(buf, sizeof buf, "%s", "  HTTPS://Example.COM:443/ ");
	assert_int_equal(host_site_normalize(buf, buf, sizeof buf, &why), 0);
	assert_string_equal(buf, "example.com");
}

static const struct target_case target_cases[] = {
	/* host parts of the connect and get rows */
	{ "example.com", "example.com", 0 },
	{ "EXAMPLE.COM", "example.com", 0 },
	{ "example.com.", "example.com", 0 },
	{ "a.b.example.org", "a.b.example.org", 0 },
	{ "evilexample.com", "evilexample.com", 0 },
	{ "example.com.evil.test", "example.com.evil.test", 0 },
	{ "user:pw@example.com", NULL, 0 },
	{ "example.com@evil.test", NULL, 0 },
	{ "127.0.0.1", "127.0.0.1", 1 },
	{ "127.1", "127.1", 1 },
	{ "2130706433", "2130706433", 1 },
	{ "0x7f000001", "0x7f000001", 1 },
	{ "0X7F000001", "0x7f000001", 1 },
	{ "0177.0.0.1", "0177.0.0.1", 1 },
	{ "0x7f.1", "0x7f.1", 1 },
	{ "0.0.0.0", "0.0.0.0", 1 },
	{ "169.254.169.254", "169.254.169.254", 1 },
	{ "2852039166", "2852039166", 1 },
	{ "127.0.0.1.", "127.0.0.1", 1 },
	{ "[::1]", "::1", 1 },
	{ "::1", "::1", 1 },
	{ "[::ffff:127.0.0.1]", "::ffff:127.0.0.1", 1 },
	{ "[::FFFF:A9FE:A9FE]", "::ffff:a9fe:a9fe", 1 },
	{ "[fd00:ec2::254]", "fd00:ec2::254", 1 },
	{ "[fe80::1%25eth0]", NULL, 0 },
	{ "[fe80::1%eth0]", NULL, 0 },
	{ "fe80::1%eth0", NULL, 0 },
	/* localhost is left to the proxy's policy */
	{ "localhost", "localhost", 0 },
	{ "LocalHost.", "localhost", 0 },
	/* refused */
	{ "", NULL, 0 },
	{ ".", NULL, 0 },
	{ " ", NULL, 0 },
	{ "example.com ", NULL, 0 },
	{ " example.com", NULL, 0 },
	{ "exam\tple.com", NULL, 0 },
	{ "example.com\r\n", NULL, 0 },
	{ "example.com\x7f", NULL, 0 },
	{ "b\xc3\xbc" "cher.example", NULL, 0 },
	{ "exa%6dple.com", NULL, 0 },
	{ "*.example.com", NULL, 0 },
	{ "example.com:443", NULL, 0 },
	{ "[example.com]", NULL, 0 },
	{ "[::1", NULL, 0 },
	{ "::1]", NULL, 0 },
	{ "[]", NULL, 0 },
	{ "[", NULL, 0 },
	{ "[[::1]]", NULL, 0 },
	{ "[127.0.0.1]", NULL, 0 },
	{ "-a.example.com", NULL, 0 },
	{ "example..com", NULL, 0 },
	{ "example.com,evil.test", NULL, 0 },
	{ "foo.123", NULL, 0 },
	{ "1.2.3.4.5", NULL, 0 },
	{ "256.1.1.1", NULL, 0 },
	{ "08.1.1.1", NULL, 0 },
	{ "xn--bcher-kva.example", "xn--bcher-kva.example", 0 },
	{ "_acme.example.com", "_acme.example.com", 0 },
};

static void
test_target_cases(void **state)
{
	char		 out[HOST_BUF_LEN];
	const char	*why;
	size_t		 i;
	int		 rc, is_ip, nbad = 0;

	(void)state;
	for (i = 0; i < sizeof target_cases / sizeof target_cases[0]; i++) {
		const struct target_case *c = &target_cases[i];

		why = NULL;
		is_ip = -1;
		rc = host_target_normalize(c->in, out, sizeof out, &is_ip,
		    &why);
		if (c->expect == NULL) {
			if (rc == 0 || why == NULL) {
				print_error("target \"%s\": accepted as "
				    "\"%s\"\n", c->in, out);
				nbad++;
			}
			continue;
		}
		if (rc != 0) {
			print_error("target \"%s\": rejected (%s)\n", c->in,
			    why != NULL ? why : "(null)");
			nbad++;
		} else if (strcmp(out, c->expect) != 0 || is_ip != c->is_ip) {
			print_error("target \"%s\": \"%s\" is_ip %d, expected "
			    "\"%s\" is_ip %d\n", c->in, out, is_ip, c->expect,
			    c->is_ip);
			nbad++;
		}
	}
	assert_int_equal(nbad, 0);
}

static void
test_target_misc(void **state)
{
	char		 name[512], out[HOST_BUF_LEN], small[4];
	const char	*why = NULL;
	int		 is_ip = 7;

	(void)state;
	make_name(name, 253);
	assert_int_equal(host_target_normalize(name, out, sizeof out, &is_ip,
	    &why), 0);
	assert_string_equal(out, name);
	assert_int_equal(is_ip, 0);
	make_name(name, 254);
	assert_int_equal(host_target_normalize(name, out, sizeof out, &is_ip,
	    &why), -1);

	/* inet_aton takes any number of leading zeros: still too long. */
	memset(name, '0', 300);
	strcpy(name + 300, "1");
	assert_int_equal(host_target_normalize(name, out, sizeof out, &is_ip,
	    &why), -1);
	assert_int_equal(host_is_ip_literal(name), 1);

	is_ip = 7;
	assert_int_equal(host_target_normalize("[::1]", small, sizeof small,
	    &is_ip, &why), 0);
	assert_string_equal(small, "::1");
	assert_int_equal(host_target_normalize("127.0.0.1", small,
	    sizeof small, &is_ip, &why), -1);
	assert_int_equal(is_ip, 0);
	assert_int_equal(host_target_normalize(NULL, out, sizeof out, &is_ip,
	    &why), -1);
	assert_int_equal(host_target_normalize("example.com", out, sizeof out,
	    NULL, NULL), 0);
	assert_string_equal(out, "example.com");

	why = NULL;
	assert_int_equal(host_target_normalize("[fe80::1%25eth0]", out,
	    sizeof out, &is_ip, &why), -1);
	assert_non_null(strstr(why, "zone"));
}

static void
test_ip_literal(void **state)
{
	static const char *const yes[] = {
		"127.0.0.1", "127.1", "2130706433", "0x7f000001", "0x7f.1",
		"0177.0.0.1", "1.2.3.4.", "[::1]", "::1", "fe80::1",
		"fe80::1%eth0", "[fe80::1%25eth0]", "::ffff:1.2.3.4",
		"[::ffff:127.0.0.1]", "foo.123", "foo.0x", "foo.0X1F",
		"1.2.3.4 trailing",
	};
	static const char *const no[] = {
		"", "[]", ".", "example.com", "123.example.com", "foo.0x1g",
		"localhost", "[example.com]", "::g", "1.2.3.4x", "foo.12a",
	};
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (host_is_ip_literal(yes[i]) != 1)
			fail_msg("\"%s\" not taken as an IP literal", yes[i]);
	}
	for (i = 0; i < sizeof no / sizeof no[0]; i++) {
		if (host_is_ip_literal(no[i]) != 0)
			fail_msg("\"%s\" taken as an IP literal", no[i]);
	}
	assert_int_equal(host_is_ip_literal(NULL), 0);
}

static void
test_match(void **state)
{
	(void)state;
	/* apex and deep subdomain under a wildcard */
	assert_int_equal(host_match("*.example.org", "example.org"), 1);
	assert_int_equal(host_match("*.example.org", "api.example.org"), 1);
	assert_int_equal(host_match("*.example.org", "a.b.example.org"), 1);
	/* not label-aligned, suffix trick */
	assert_int_equal(host_match("*.example.org", "evilexample.org"), 0);
	assert_int_equal(host_match("*.example.org",
	    "example.org.evil.test"), 0);
	assert_int_equal(host_match("*.example.org", ".example.org"), 0);
	assert_int_equal(host_match("*.example.org", "org"), 0);
	assert_int_equal(host_match("example.com", "evilexample.com"), 0);
	assert_int_equal(host_match("example.com", "example.com.evil.test"),
	    0);
	/* plain entries match only themselves */
	assert_int_equal(host_match("example.com", "example.com"), 1);
	assert_int_equal(host_match("example.com", "a.example.com"), 0);
	assert_int_equal(host_match("example.com", "example.co"), 0);
	/* trailing dot and case on the host */
	assert_int_equal(host_match("example.com", "example.com."), 1);
	assert_int_equal(host_match("example.com", "EXAMPLE.Com"), 1);
	assert_int_equal(host_match("*.example.org", "A.B.Example.ORG."), 1);
	assert_int_equal(host_match("*.example.org", "EXAMPLE.ORG.."), 1);
	/* degenerate */
	assert_int_equal(host_match("*.", "example.com"), 0);
	assert_int_equal(host_match("*", "example.com"), 0);
	assert_int_equal(host_match("", ""), 0);
	assert_int_equal(host_match("example.com", ""), 0);
	assert_int_equal(host_match("example.com", "."), 0);
	assert_int_equal(host_match(NULL, "example.com"), 0);
	assert_int_equal(host_match("example.com", NULL), 0);
}

static void
test_match_list(void **state)
{
	char	*list[] = { "example.com", NULL, "*.example.org",
	    "api.example.org" };

	(void)state;
	assert_int_equal(host_match_list(list, 4, "example.com"), 0);
	assert_int_equal(host_match_list(list, 4, "api.example.org"), 2);
	assert_int_equal(host_match_list(list, 4, "example.org"), 2);
	assert_int_equal(host_match_list(list, 4, "evil.test"), -1);
	assert_int_equal(host_match_list(list, 2, "example.org"), -1);
	assert_int_equal(host_match_list(list, 0, "example.com"), -1);
	assert_int_equal(host_match_list(NULL, 4, "example.com"), -1);
	assert_int_equal(host_match_list(list + 3, 1, "api.example.org"), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_site_tsv),
		cmocka_unit_test(test_site_cases),
		cmocka_unit_test(test_site_reasons),
		cmocka_unit_test(test_site_lengths),
		cmocka_unit_test(test_site_buffers),
		cmocka_unit_test(test_target_cases),
		cmocka_unit_test(test_target_misc),
		cmocka_unit_test(test_ip_literal),
		cmocka_unit_test(test_match),
		cmocka_unit_test(test_match_list),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
