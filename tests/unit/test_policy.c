/*
 * Unit tests for policy.c: defaults, the canonical JSON form and its round
 * trip, every validation rule with the message a person reads, the site
 * rows of tests/data/proxy-hostile.tsv, the restart rule, and folder
 * grants checked against a real temporary HOME.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "paths.h"
#include "policy.h"

#ifndef SB_TEST_DATA
#error "SB_TEST_DATA must name the tests/data directory"
#endif

#define TSV_PATH	SB_TEST_DATA "/proxy-hostile.tsv"
#define SITE_ROWS_MIN	30

/* ------------------------------------------------------------------ */
/* helpers */

/* Parse text that must be accepted; fails the test with the reason. */
static void
parse_ok(const char *text, const struct guard_env *env, int flags,
    struct policy *p)
{
	char	err[1024] = "";

	if (policy_parse(p, text, strlen(text), env, flags, err,
	    sizeof err) != 0)
		fail_msg("refused %s: %s", text, err);
}

/*
 * Parse text that must be refused; the message must be one line and
 * contain each of the (up to two) needles.  The policy is left at the
 * defaults.
 */
static void
parse_err(const char *text, const struct guard_env *env, int flags,
    const char *needle1, const char *needle2)
{
	struct policy	p;
	char		err[1024] = "";

	if (policy_parse(&p, text, strlen(text), env, flags, err,
	    sizeof err) != -1) {
		char *s = policy_to_string(&p, 0);

		snprintf(err, sizeof err, "%s", s != NULL ? s : "?");
		free(s);
		policy_free(&p);
		fail_msg("accepted %s as %s", text, err);
	}
	if (err[0] == '\0')
		fail_msg("refused %s without a message", text);
	if (strchr(err, '\n') != NULL)
		fail_msg("message for %s is not one line: %s", text, err);
	if (needle1 != NULL && strstr(err, needle1) == NULL)
		fail_msg("message for %s lacks '%s': %s", text, needle1, err);
	if (needle2 != NULL && strstr(err, needle2) == NULL)
		fail_msg("message for %s lacks '%s': %s", text, needle2, err);
	/* A refused policy is left at the defaults, safe to free. */
	assert_int_equal(p.nfolders, 0);
	assert_int_equal(p.nhosts, 0);
	assert_int_equal(p.nloopback, 0);
	assert_null(p.extra);
	policy_free(&p);
}

/* The canonical compact form of text. */
static char *
canon(const char *text)
{
	struct policy	 p;
	char		*s;

	parse_ok(text, NULL, POLICY_FROM_STORE, &p);
	s = policy_to_string(&p, 0);
	assert_non_null(s);
	policy_free(&p);
	return s;
}

/* {"<key>":[<n distinct ...>]} built by the caller's formatter. */
static char *
hosts_json(int n, int extra_dup)
{
	size_t	 len = 32 + (size_t)n * 32;
	char	*buf = malloc(len), *p;
	int	 i;

	assert_non_null(buf);
	p = buf + sprintf(buf, "{\"hosts\":[");
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s\"h%d.example.com\"", i ? "," : "", i);
	if (extra_dup)
		p += sprintf(p, ",\"H0.EXAMPLE.COM.\"");
	sprintf(p, "]}");
	return buf;
}

static char *
loopback_json(int n)
{
	size_t	 len = 32 + (size_t)n * 8;
	char	*buf = malloc(len), *p;
	int	 i;

	assert_non_null(buf);
	p = buf + sprintf(buf, "{\"loopback\":[");
	for (i = 0; i < n; i++)
		p += sprintf(p, "%s%d", i ? "," : "", 1000 + i);
	sprintf(p, "]}");
	return buf;
}

/* ------------------------------------------------------------------ */
/* defaults and the canonical form */

static void
test_defaults(void **state)
{
	static const char *const keys[] = {
		"enabled", "readMode", "folders", "network", "hosts",
		"daemonApi", "loopback", "forced", "allowPrivate", NULL
	};
	struct policy	 p;
	cJSON		*o, *v;
	char		*s, *s2;
	size_t		 i;

	(void)state;
	parse_ok("{}", NULL, POLICY_FROM_REQUEST, &p);
	assert_false(p.enabled);
	assert_int_equal(p.read_mode, POLICY_READ_OPEN);
	assert_int_equal(p.nfolders, 0);
	assert_int_equal(p.network, POLICY_NET_ALL);
	assert_int_equal(p.nhosts, 0);
	assert_true(p.daemon_api);
	assert_int_equal(p.nloopback, 0);
	assert_false(p.forced);
	assert_false(p.allow_private);
	assert_null(p.extra);

	/* Exactly the known keys, in this order, nothing else. */
	o = policy_to_json(&p);
	assert_non_null(o);
	i = 0;
	cJSON_ArrayForEach(v, o) {
		if (keys[i] == NULL)
			fail_msg("extra key \"%s\" in the defaults", v->string);
		assert_string_equal(v->string, keys[i]);
		i++;
	}
	assert_null(keys[i]);
	cJSON_Delete(o);

	s = policy_to_string(&p, 0);
	assert_string_equal(s, "{\"enabled\":false,\"readMode\":\"open\","
	    "\"folders\":[],\"network\":\"all\",\"hosts\":[],"
	    "\"daemonApi\":true,\"loopback\":[],\"forced\":false,"
	    "\"allowPrivate\":false}");
	policy_free(&p);

	/* policy_init gives the same defaults as parsing "{}". */
	policy_init(&p);
	s2 = policy_to_string(&p, 0);
	assert_string_equal(s, s2);
	free(s2);
	free(s);
	policy_free(&p);
}

static void
test_round_trip_extras(void **state)
{
	const char	*in = "{\"enabled\":true,\"futureKey\":{\"a\":[1,2]},"
	    "\"hosts\":[\"Example.COM\"],\"note\":\"x\",\"loopback\":[8080]}";
	struct policy	 a, b;
	cJSON		*o, *want;
	char		*s1, *s2;

	(void)state;
	parse_ok(in, NULL, POLICY_FROM_STORE, &a);
	s1 = policy_to_string(&a, 0);
	assert_non_null(s1);

	/* The unknown keys come out unchanged, after the known ones. */
	o = cJSON_Parse(s1);
	assert_non_null(o);
	want = cJSON_Parse("{\"a\":[1,2]}");
	assert_true(cJSON_Compare(cJSON_GetObjectItemCaseSensitive(o,
	    "futureKey"), want, 1));
	cJSON_Delete(want);
	assert_true(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o,
	    "note")));
	assert_string_equal(cJSON_GetObjectItemCaseSensitive(o,
	    "note")->valuestring, "x");
	assert_int_equal(cJSON_GetArraySize(o), 11);
	cJSON_Delete(o);

	parse_ok(s1, NULL, POLICY_FROM_STORE, &b);
	assert_true(policy_equal(&a, &b));
	assert_true(policy_equal(&b, &a));
	assert_false(policy_needs_restart(&a, &b));
	s2 = policy_to_string(&b, 0);
	assert_string_equal(s1, s2);
	free(s2);
	policy_free(&b);

	/* The pretty form (what the store writes) parses back equal too. */
	s2 = policy_to_string(&a, 1);
	parse_ok(s2, NULL, POLICY_FROM_STORE, &b);
	assert_true(policy_equal(&a, &b));
	free(s2);
	policy_free(&b);

	/* A copy is deep and equal. */
	policy_copy(&b, &a);
	assert_true(policy_equal(&a, &b));
	assert_ptr_not_equal(a.hosts[0], b.hosts[0]);
	assert_ptr_not_equal(a.extra, b.extra);
	policy_free(&b);

	/* policy_equal notices a different extra and a missing one. */
	parse_ok("{\"enabled\":true,\"futureKey\":{\"a\":[1,3]},"
	    "\"hosts\":[\"example.com\"],\"note\":\"x\",\"loopback\":[8080]}",
	    NULL, POLICY_FROM_STORE, &b);
	assert_false(policy_equal(&a, &b));
	policy_free(&b);
	parse_ok("{\"enabled\":true,\"hosts\":[\"example.com\"],"
	    "\"loopback\":[8080]}", NULL, POLICY_FROM_STORE, &b);
	assert_false(policy_equal(&a, &b));
	assert_false(policy_equal(&b, &a));
	policy_free(&b);

	free(s1);
	policy_free(&a);
}

static void
test_canonical_idempotent(void **state)
{
	static const char *const inputs[] = {
		"{}",
		"{\"enabled\":true,\"readMode\":\"allowlist\","
		    "\"network\":\"hosts\",\"hosts\":[\"https://A.example.com/x\","
		    "\"*.Example.org.\"],\"daemonApi\":false,"
		    "\"loopback\":[9000,80,9000],\"allowPrivate\":true,"
		    "\"forced\":true,\"zzz\":[null,true,1.5,\"s\"]}",
		"{\"folders\":[{\"path\":\"/srv/a\",\"readOnly\":true},"
		    "{\"path\":\"/srv/b\"}],\"network\":\"off\"}",
		NULL
	};
	char	*c1, *c2;
	size_t	 i;

	(void)state;
	for (i = 0; inputs[i] != NULL; i++) {
		c1 = canon(inputs[i]);
		c2 = canon(c1);
		if (strcmp(c1, c2) != 0)
			fail_msg("not idempotent:\n  %s\n  %s", c1, c2);
		free(c1);
		free(c2);
	}
	/* The normalisations show in the canonical form. */
	c1 = canon(inputs[1]);
	assert_non_null(strstr(c1, "\"readMode\":\"strict\""));
	assert_non_null(strstr(c1,
	    "\"hosts\":[\"a.example.com\",\"*.example.org\"]"));
	assert_non_null(strstr(c1, "\"loopback\":[80,9000]"));
	assert_non_null(strstr(c1, "\"forced\":true"));
	free(c1);
}

/* ------------------------------------------------------------------ */
/* validation */

static void
test_type_errors(void **state)
{
	(void)state;
	parse_err("{\"enabled\":\"yes\"}", NULL, 0, "enabled", "\"yes\"");
	parse_err("{\"enabled\":1}", NULL, 0, "enabled", "1");
	parse_err("{\"readMode\":\"closed\"}", NULL, 0, "readMode",
	    "\"closed\"");
	parse_err("{\"readMode\":true}", NULL, 0, "readMode", "true");
	parse_err("{\"network\":\"some\"}", NULL, 0, "network", "\"some\"");
	parse_err("{\"network\":\"ALL\"}", NULL, 0, "network", "\"ALL\"");
	parse_err("{\"hosts\":\"example.com\"}", NULL, 0, "hosts",
	    "\"example.com\"");
	parse_err("{\"hosts\":{\"a\":1}}", NULL, 0, "hosts", "{\"a\":1}");
	parse_err("{\"hosts\":[\"example.com\",42]}", NULL, 0, "hosts[1]",
	    "42");
	parse_err("{\"folders\":\"/srv\"}", NULL, 0, "folders", "\"/srv\"");
	parse_err("{\"folders\":[\"/srv\"]}", NULL, 0, "folders[0]",
	    "\"/srv\"");
	parse_err("{\"folders\":[7]}", NULL, 0, "folders[0]", "7");
	parse_err("{\"folders\":[{\"readOnly\":true}]}", NULL, 0,
	    "folders[0].path", NULL);
	parse_err("{\"folders\":[{\"path\":\"\"}]}", NULL, 0,
	    "folders[0].path", NULL);
	parse_err("{\"folders\":[{\"path\":\"/srv\",\"readOnly\":\"no\"}]}",
	    NULL, 0, "folders[0].readOnly", "\"no\"");
	parse_err("{\"daemonApi\":1}", NULL, 0, "daemonApi", "1");
	parse_err("{\"loopback\":80}", NULL, 0, "loopback", "80");
	parse_err("{\"loopback\":[0]}", NULL, 0, "loopback[0]", "0");
	parse_err("{\"loopback\":[80,65536]}", NULL, 0, "loopback[1]",
	    "65536");
	parse_err("{\"loopback\":[1.5]}", NULL, 0, "loopback[0]", "1.5");
	parse_err("{\"loopback\":[\"80\"]}", NULL, 0, "loopback[0]",
	    "\"80\"");
	parse_err("{\"loopback\":[-1]}", NULL, 0, "loopback[0]", "-1");
	parse_err("{\"loopback\":[1e999]}", NULL, 0, "loopback[0]", NULL);
	parse_err("{\"allowPrivate\":\"no\"}", NULL, 0, "allowPrivate",
	    "\"no\"");
	/* From the store, "forced" must be a boolean too. */
	parse_err("{\"forced\":\"yes\"}", NULL, POLICY_FROM_STORE, "forced",
	    "\"yes\"");
	/* A long value is shortened, not dropped. */
	parse_err("{\"network\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", NULL, 0,
	    "network \"aaaaaaaaaa", "...");
}

static void
test_read_mode(void **state)
{
	struct policy	p;
	char		*s;

	(void)state;
	parse_ok("{\"readMode\":\"allowlist\"}", NULL, 0, &p);
	assert_int_equal(p.read_mode, POLICY_READ_STRICT);
	s = policy_to_string(&p, 0);
	assert_non_null(strstr(s, "\"readMode\":\"strict\""));
	assert_null(strstr(s, "allowlist"));
	free(s);
	policy_free(&p);

	parse_ok("{\"readMode\":\"strict\"}", NULL, 0, &p);
	assert_int_equal(p.read_mode, POLICY_READ_STRICT);
	policy_free(&p);
	parse_ok("{\"readMode\":\"open\"}", NULL, 0, &p);
	assert_int_equal(p.read_mode, POLICY_READ_OPEN);
	policy_free(&p);
	parse_ok("{\"network\":\"off\"}", NULL, 0, &p);
	assert_int_equal(p.network, POLICY_NET_OFF);
	policy_free(&p);
	parse_ok("{\"network\":\"hosts\"}", NULL, 0, &p);
	assert_int_equal(p.network, POLICY_NET_HOSTS);
	policy_free(&p);
}

static void
test_hosts_limits(void **state)
{
	struct policy	 p;
	char		*j;

	(void)state;
	j = hosts_json(64, 0);
	parse_ok(j, NULL, 0, &p);
	assert_int_equal(p.nhosts, 64);
	assert_string_equal(p.hosts[63], "h63.example.com");
	policy_free(&p);
	free(j);

	/* 64 distinct plus a duplicate spelling is still 64. */
	j = hosts_json(64, 1);
	parse_ok(j, NULL, 0, &p);
	assert_int_equal(p.nhosts, 64);
	policy_free(&p);
	free(j);

	j = hosts_json(65, 0);
	parse_err(j, NULL, 0, "hosts", "64");
	free(j);
}

static void
test_hosts_dedup(void **state)
{
	struct policy	p;

	(void)state;
	parse_ok("{\"hosts\":[\"b.example.net\",\"Example.COM\","
	    "\"example.com.\",\"a.example.net\",\"https://example.com/x\","
	    "\"B.example.net\"]}", NULL, 0, &p);
	assert_int_equal(p.nhosts, 3);
	assert_string_equal(p.hosts[0], "b.example.net");
	assert_string_equal(p.hosts[1], "example.com");
	assert_string_equal(p.hosts[2], "a.example.net");
	policy_free(&p);

	/* A bad entry later in the list is named by its index. */
	parse_err("{\"hosts\":[\"example.com\",\"localhost\"]}", NULL, 0,
	    "hosts[1]", "\"localhost\"");
}

static void
test_loopback(void **state)
{
	struct policy	 p;
	char		*j, *s;

	(void)state;
	parse_ok("{\"loopback\":[5432,80,5432]}", NULL, 0, &p);
	assert_int_equal(p.nloopback, 2);
	assert_int_equal(p.loopback[0], 80);
	assert_int_equal(p.loopback[1], 5432);
	s = policy_to_string(&p, 0);
	assert_non_null(strstr(s, "\"loopback\":[80,5432]"));
	free(s);
	policy_free(&p);

	parse_ok("{\"loopback\":[65535,1,8080.0]}", NULL, 0, &p);
	assert_int_equal(p.nloopback, 3);
	assert_int_equal(p.loopback[0], 1);
	assert_int_equal(p.loopback[1], 8080);
	assert_int_equal(p.loopback[2], 65535);
	policy_free(&p);

	j = loopback_json(16);
	parse_ok(j, NULL, 0, &p);
	assert_int_equal(p.nloopback, 16);
	policy_free(&p);
	free(j);

	j = loopback_json(17);
	parse_err(j, NULL, 0, "loopback", "16");
	free(j);
}

static void
test_folders_count(void **state)
{
	char	buf[2048], *p;
	int	i;

	(void)state;
	p = buf + sprintf(buf, "{\"folders\":[");
	for (i = 0; i < 17; i++)
		p += sprintf(p, "%s{\"path\":\"/srv/f%d\"}", i ? "," : "", i);
	sprintf(p, "]}");
	parse_err(buf, NULL, 0, "folders", "16");
}

static void
test_structure(void **state)
{
	struct policy	p;
	char		err[256];

	(void)state;
	parse_err("{\"enabled\":true,\"enabled\":false}", NULL, 0, "enabled",
	    "twice");
	parse_err("{\"note\":1,\"hosts\":[],\"note\":2}", NULL, 0, "note",
	    NULL);
	parse_err("[]", NULL, 0, "[]", "object");
	parse_err("\"x\"", NULL, 0, "\"x\"", "object");
	parse_err("null", NULL, 0, "null", "object");
	parse_err("42", NULL, 0, "42", "object");
	parse_err("{\"enabled\":", NULL, 0, "JSON", NULL);
	parse_err("", NULL, 0, "JSON", NULL);
	parse_err("{enabled:true}", NULL, 0, "JSON", NULL);

	/* policy_from_json refuses a non-object too. */
	{
		cJSON *a = cJSON_CreateArray();

		assert_int_equal(policy_from_json(&p, a, NULL, 0, err,
		    sizeof err), -1);
		assert_non_null(strstr(err, "object"));
		policy_free(&p);
		cJSON_Delete(a);
	}

	/* The length is honoured: only the first len bytes are parsed. */
	assert_int_equal(policy_parse(&p, "{}garbage", 2, NULL, 0, err,
	    sizeof err), 0);
	policy_free(&p);

	/* Trailing whitespace (the store writes a final newline) is fine. */
	parse_ok("{\"enabled\":true}\n", NULL, POLICY_FROM_STORE, &p);
	assert_true(p.enabled);
	policy_free(&p);
}

/*
 * A file with something after the JSON value (a torn or doubled write:
 * two objects, or a stray brace) is corrupt and must be refused, not read
 * as its first object.
 */
static void
test_trailing_garbage(void **state)
{
	(void)state;
	parse_err("{\"enabled\":false}{\"enabled\":true}", NULL,
	    POLICY_FROM_STORE, "JSON", NULL);
	parse_err("{\"enabled\":true}}", NULL, POLICY_FROM_STORE, "JSON",
	    NULL);
	parse_err("{\"enabled\":true} x", NULL, POLICY_FROM_STORE, "JSON",
	    NULL);
}

/*
 * Parse text; when accepted, the canonical form must parse back to an
 * equal policy (and a copy must be equal): what was kept is kept exactly.
 * Refusing the input is also fine.
 */
static void
accepted_round_trips(const char *text)
{
	struct policy	 a, b;
	char		 err[1024];
	char		*s1, *s2;

	if (policy_parse(&a, text, strlen(text), NULL, POLICY_FROM_REQUEST,
	    err, sizeof err) != 0) {
		assert_null(strchr(err, '\n'));
		policy_free(&a);
		return;
	}
	policy_copy(&b, &a);
	if (!policy_equal(&a, &b)) {
		policy_free(&a);
		policy_free(&b);
		fail_msg("%s: not equal to its own copy", text);
	}
	policy_free(&b);
	s1 = policy_to_string(&a, 0);
	parse_ok(s1, NULL, POLICY_FROM_STORE, &b);
	s2 = policy_to_string(&b, 0);
	if (!policy_equal(&a, &b) || strcmp(s1, s2) != 0) {
		snprintf(err, sizeof err, "%s", s1);
		free(s1);
		free(s2);
		policy_free(&a);
		policy_free(&b);
		fail_msg("%s: changed by the round trip: %s", text, err);
	}
	free(s1);
	free(s2);
	policy_free(&a);
	policy_free(&b);
}

/*
 * Unknown keys are preserved: a value kept under one must come back as
 * the same value.  An object with a key given twice inside an unknown
 * value, or a number that does not fit a double, is either refused or
 * kept so that the saved policy equals what was accepted.
 */
static void
test_extras_preserved_exactly(void **state)
{
	(void)state;
	accepted_round_trips("{\"futureKey\":{\"a\":[1,2]},\"n\":-0.0,"
	    "\"big\":12345678901234567890,\"s\":\"\\u00e9\\n\"}");
	accepted_round_trips("{\"futureKey\":{\"a\":1,\"a\":2}}");
	accepted_round_trips("{\"futureKey\":[{\"a\":1,\"a\":2}]}");
	accepted_round_trips("{\"x\":1e999}");
	accepted_round_trips("{\"x\":[-1e999]}");
}

/*
 * Every refusal is one line, even when the value holds a control
 * character: the value is shown escaped, as for the other fields.
 */
static void
test_messages_one_line(void **state)
{
	struct policy	p;
	char		err[512];

	(void)state;
	parse_err("{\"hosts\":[\"exa\\nmple.com\"]}", NULL, 0, "hosts[0]",
	    NULL);
	parse_err("{\"a\\nb\":1,\"a\\nb\":2}", NULL, 0, "twice", NULL);
	parse_err("{\"folders\":[{\"path\":\"/x\\ny\"},"
	    "{\"path\":\"/x\\ny\"}]}", NULL, 0, "folders[1].path", NULL);

	policy_init(&p);
	err[0] = '\0';
	assert_int_equal(policy_add_host(&p, "exa\nmple.com", err,
	    sizeof err), -1);
	assert_int_not_equal(err[0], '\0');
	if (strchr(err, '\n') != NULL)
		fail_msg("policy_add_host message is not one line: %s", err);
	policy_free(&p);
}

static void
test_forced(void **state)
{
	struct policy	 p;
	char		*s;

	(void)state;
	parse_ok("{\"forced\":true,\"enabled\":true}", NULL,
	    POLICY_FROM_REQUEST, &p);
	assert_false(p.forced);
	assert_true(p.enabled);
	s = policy_to_string(&p, 0);
	assert_non_null(strstr(s, "\"forced\":false"));
	assert_null(strstr(s, "\"forced\":true"));
	free(s);
	policy_free(&p);

	parse_ok("{\"forced\":true}", NULL, POLICY_FROM_STORE, &p);
	assert_true(p.forced);
	policy_free(&p);
}

/* ------------------------------------------------------------------ */
/* the site rows of proxy-hostile.tsv through the policy */

static int
site_row(const char *id, const char *in, const char *expect)
{
	struct policy	 p;
	cJSON		*o, *a;
	char		 err[1024] = "";
	int		 rc, bad = 0;

	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, "hosts");
	cJSON_AddItemToArray(a, cJSON_CreateString(in));
	rc = policy_from_json(&p, o, NULL, POLICY_FROM_REQUEST, err,
	    sizeof err);
	cJSON_Delete(o);
	if (expect == NULL) {
		if (rc == 0) {
			print_error("%s: \"%s\" accepted as \"%s\", expected "
			    "reject\n", id, in, p.nhosts ? p.hosts[0] : "-");
			bad = 1;
		} else if (strstr(err, "hosts[0]") == NULL) {
			print_error("%s: message does not name hosts[0]: %s\n",
			    id, err);
			bad = 1;
		} else if (p.nhosts != 0) {
			print_error("%s: refused but hosts kept\n", id);
			bad = 1;
		}
	} else if (rc != 0) {
		print_error("%s: \"%s\" refused (%s), expected \"%s\"\n", id,
		    in, err, expect);
		bad = 1;
	} else if (p.nhosts != 1 || strcmp(p.hosts[0], expect) != 0) {
		print_error("%s: \"%s\" stored as \"%s\", expected \"%s\"\n",
		    id, in, p.nhosts ? p.hosts[0] : "-", expect);
		bad = 1;
	}
	policy_free(&p);
	return bad;
}

static void
test_hosts_tsv(void **state)
{
	FILE		*f;
	char		 line[4096];
	char		*field[5], *p;
	const char	*expect;
	int		 nrows = 0, nbad = 0, n;

	(void)state;
	if ((f = fopen(TSV_PATH, "r")) == NULL)
		fail_msg("cannot open %s: %s", TSV_PATH, strerror(errno));
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
		/* The site rows use no escapes; refuse to guess if one does. */
		if (strchr(field[2], '\\') != NULL) {
			print_error("%s: escaped input not supported here\n",
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
		nbad += site_row(field[0], field[2], expect);
	}
	fclose(f);
	if (nrows < SITE_ROWS_MIN)
		fail_msg("only %d site rows in %s", nrows, TSV_PATH);
	if (nbad != 0)
		fail_msg("%d of %d site rows failed", nbad, nrows);
}

/* ------------------------------------------------------------------ */
/* policy_add_host and policy_needs_restart */

static void
test_add_host(void **state)
{
	struct policy	p;
	char		err[512], name[64];
	int		i;

	(void)state;
	policy_init(&p);
	assert_int_equal(policy_add_host(&p, "  Example.COM ", err,
	    sizeof err), 0);
	assert_int_equal(p.nhosts, 1);
	assert_string_equal(p.hosts[0], "example.com");
	assert_int_equal(policy_add_host(&p, "example.com.", err,
	    sizeof err), 0);
	assert_int_equal(policy_add_host(&p, "https://EXAMPLE.com:8443/x",
	    err, sizeof err), 0);
	assert_int_equal(p.nhosts, 1);

	err[0] = '\0';
	assert_int_equal(policy_add_host(&p, "127.0.0.1", err, sizeof err),
	    -1);
	assert_non_null(strstr(err, "127.0.0.1"));
	assert_int_equal(policy_add_host(&p, "*.com", err, sizeof err), -1);
	assert_non_null(strstr(err, "*.com"));
	assert_int_equal(policy_add_host(&p, "localhost", err, sizeof err),
	    -1);
	assert_int_equal(p.nhosts, 1);

	for (i = 1; i < 64; i++) {
		snprintf(name, sizeof name, "h%d.example.net", i);
		assert_int_equal(policy_add_host(&p, name, err, sizeof err),
		    0);
	}
	assert_int_equal(p.nhosts, 64);
	err[0] = '\0';
	assert_int_equal(policy_add_host(&p, "one-more.example.net", err,
	    sizeof err), -1);
	assert_non_null(strstr(err, "one-more.example.net"));
	assert_non_null(strstr(err, "64"));
	assert_int_equal(p.nhosts, 64);
	/* A site already on a full list is not an error. */
	assert_int_equal(policy_add_host(&p, "EXAMPLE.com", err, sizeof err),
	    0);
	assert_int_equal(p.nhosts, 64);
	policy_free(&p);
}

static void
test_needs_restart(void **state)
{
	static const char *const base = "{\"enabled\":true,"
	    "\"readMode\":\"open\",\"network\":\"hosts\","
	    "\"hosts\":[\"example.com\"],\"daemonApi\":true,"
	    "\"loopback\":[5432],\"folders\":[{\"path\":\"/srv/a\"}]}";
	static const char *const differ[] = {
		"{\"enabled\":false,\"readMode\":\"open\",\"network\":\"hosts\","
		    "\"daemonApi\":true,\"loopback\":[5432],"
		    "\"folders\":[{\"path\":\"/srv/a\"}]}",
		"{\"enabled\":true,\"readMode\":\"strict\","
		    "\"network\":\"hosts\",\"daemonApi\":true,"
		    "\"loopback\":[5432],\"folders\":[{\"path\":\"/srv/a\"}]}",
		"{\"enabled\":true,\"readMode\":\"open\",\"network\":\"off\","
		    "\"daemonApi\":true,\"loopback\":[5432],"
		    "\"folders\":[{\"path\":\"/srv/a\"}]}",
		"{\"enabled\":true,\"readMode\":\"open\",\"network\":\"hosts\","
		    "\"daemonApi\":false,\"loopback\":[5432],"
		    "\"folders\":[{\"path\":\"/srv/a\"}]}",
		"{\"enabled\":true,\"readMode\":\"open\",\"network\":\"hosts\","
		    "\"daemonApi\":true,\"loopback\":[5432],"
		    "\"folders\":[{\"path\":\"/srv/b\"}]}",
		"{\"enabled\":true,\"readMode\":\"open\",\"network\":\"hosts\","
		    "\"daemonApi\":true,\"loopback\":[5432],"
		    "\"folders\":[{\"path\":\"/srv/a\",\"readOnly\":true}]}",
		"{\"enabled\":true,\"readMode\":\"open\",\"network\":\"hosts\","
		    "\"daemonApi\":true,\"loopback\":[5432],\"folders\":[]}",
		"{\"enabled\":true,\"readMode\":\"open\",\"network\":\"hosts\","
		    "\"daemonApi\":true,\"loopback\":[5433],"
		    "\"folders\":[{\"path\":\"/srv/a\"}]}",
		"{\"enabled\":true,\"readMode\":\"open\",\"network\":\"hosts\","
		    "\"daemonApi\":true,\"loopback\":[5432,6379],"
		    "\"folders\":[{\"path\":\"/srv/a\"}]}",
		NULL
	};
	struct policy	run, saved;
	size_t		i;

	(void)state;
	parse_ok(base, NULL, POLICY_FROM_STORE, &run);

	/* Only the site list differs: applied live, no restart. */
	parse_ok("{\"enabled\":true,\"readMode\":\"open\","
	    "\"network\":\"hosts\",\"hosts\":[\"example.org\","
	    "\"*.example.net\"],\"daemonApi\":true,\"loopback\":[5432],"
	    "\"folders\":[{\"path\":\"/srv/a\"}]}", NULL, POLICY_FROM_STORE,
	    &saved);
	assert_false(policy_needs_restart(&run, &saved));
	assert_false(policy_equal(&run, &saved));
	policy_free(&saved);

	/* allowPrivate reaches the running proxy at once too. */
	parse_ok("{\"enabled\":true,\"readMode\":\"open\","
	    "\"network\":\"hosts\",\"hosts\":[\"example.com\"],"
	    "\"daemonApi\":true,\"loopback\":[5432],"
	    "\"folders\":[{\"path\":\"/srv/a\"}],\"allowPrivate\":true}",
	    NULL, POLICY_FROM_STORE, &saved);
	assert_false(policy_needs_restart(&run, &saved));
	assert_false(policy_equal(&run, &saved));
	policy_free(&saved);

	parse_ok(base, NULL, POLICY_FROM_STORE, &saved);
	assert_false(policy_needs_restart(&run, &saved));
	assert_true(policy_equal(&run, &saved));
	policy_free(&saved);

	for (i = 0; differ[i] != NULL; i++) {
		parse_ok(differ[i], NULL, POLICY_FROM_STORE, &saved);
		if (!policy_needs_restart(&run, &saved))
			fail_msg("no restart for %s", differ[i]);
		if (!policy_needs_restart(&saved, &run))
			fail_msg("no restart (reversed) for %s", differ[i]);
		assert_false(policy_equal(&run, &saved));
		policy_free(&saved);
	}
	policy_free(&run);
}

/* ------------------------------------------------------------------ */
/* folders against a real temporary HOME */

/* Short fixed sizes: the mkdtemp path is short, and derived paths fit. */
static char	 t_base[256];		/* canonical mkdtemp dir */
static char	 t_home[512];		/* t_base/home */
static char	 t_root[768];		/* t_home/.senclaw */
static struct guard_env t_env;

static void
mk(const char *rel)
{
	char	path[PATH_MAX * 2];

	snprintf(path, sizeof path, "%s/%s", t_base, rel);
	if (mkdir(path, 0700) == -1 && errno != EEXIST)
		fail_msg("mkdir %s: %s", path, strerror(errno));
}

static void
ln(const char *target, const char *rel)
{
	char	path[PATH_MAX * 2];

	snprintf(path, sizeof path, "%s/%s", t_base, rel);
	if (symlink(target, path) == -1)
		fail_msg("symlink %s: %s", path, strerror(errno));
}

static int
folders_setup(void **state)
{
	char	tmpl[] = "/tmp/sbtest.XXXXXX", path[PATH_MAX * 2];
	char	real[PATH_MAX];
	FILE	*f;

	(void)state;
	if (mkdtemp(tmpl) == NULL || realpath(tmpl, real) == NULL ||
	    strlen(real) >= sizeof t_base)
		return -1;
	memcpy(t_base, real, strlen(real) + 1);
	mk("home");
	mk("home/.ssh");
	mk("home/.ssh/sub");
	mk("home/.config");
	mk("home/.config/gcloud");
	mk("home/.config/other");
	mk("home/projects");
	mk("home/projects/app");
	ln("../.ssh", "home/projects/keys");
	ln("app", "home/projects/applink");
	mk("home/.senclaw");
	mk("home/.senclaw/sandbox");
	mk("elsewhere");
	mk("elsewhere/aws-real");
	mk("elsewhere/aws-real/sso");
	snprintf(path, sizeof path, "%s/elsewhere/aws-real", t_base);
	ln(path, "home/.aws");
	snprintf(path, sizeof path, "%s/home/notes.txt", t_base);
	if ((f = fopen(path, "w")) == NULL)
		return -1;
	fputs("x\n", f);
	fclose(f);

	snprintf(t_home, sizeof t_home, "%s/home", t_base);
	snprintf(t_root, sizeof t_root, "%s/.senclaw", t_home);
	t_env.home = t_home;
	t_env.root = t_root;
	return 0;
}

static int
folders_teardown(void **state)
{
	(void)state;
	if (t_base[0] == '\0' || strncmp(t_base, "/tmp/sbtest.", 12) != 0)
		return 0;
	return paths_rmtree(t_base);
}

/* {"folders":[{"path":"<path>"}]} for a path under a test base. */
static char *
folder_json(const char *path, int ro)
{
	cJSON	*o, *a, *f;
	char	*s, *out;

	o = cJSON_CreateObject();
	a = cJSON_AddArrayToObject(o, "folders");
	f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "path", path);
	if (ro >= 0)
		cJSON_AddBoolToObject(f, "readOnly", ro);
	cJSON_AddItemToArray(a, f);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	out = strdup(s);
	cJSON_free(s);
	return out;
}

/* A folder under the fake home (rel may be "" for home itself). */
static void
hpath(char *buf, size_t len, const char *rel)
{
	snprintf(buf, len, "%s%s%s", t_home, rel[0] ? "/" : "", rel);
}

static void
folder_ok(const char *path, const char *want, int ro)
{
	struct policy	 p;
	char		*j;

	j = folder_json(path, ro);
	parse_ok(j, &t_env, POLICY_FROM_REQUEST, &p);
	assert_int_equal(p.nfolders, 1);
	assert_string_equal(p.folders[0].path, want);
	assert_int_equal(p.folders[0].read_only, ro > 0);
	policy_free(&p);
	free(j);
}

static void
folder_refused(const char *path, const char *why)
{
	char	*j, shown[PATH_MAX + 16];

	j = folder_json(path, -1);
	snprintf(shown, sizeof shown, "\"%s\"", path);
	parse_err(j, &t_env, POLICY_FROM_REQUEST, "folders[0].path", shown);
	if (why != NULL)
		parse_err(j, &t_env, POLICY_FROM_REQUEST, why, NULL);
	free(j);
}

static void
test_folders_ok(void **state)
{
	char	path[PATH_MAX], want[PATH_MAX];

	(void)state;
	hpath(want, sizeof want, "projects/app");
	folder_ok(want, want, -1);
	folder_ok(want, want, 1);
	folder_ok(want, want, 0);
	hpath(path, sizeof path, "projects/./app");
	folder_ok(path, want, 1);
	hpath(path, sizeof path, "projects/../projects/app/");
	folder_ok(path, want, -1);
	hpath(path, sizeof path, "projects/applink");
	folder_ok(path, want, -1);
	/* Spelled through a non-canonical base (//, /./) it still resolves. */
	snprintf(path, sizeof path, "%s/.//home//projects/app", t_base);
	folder_ok(path, want, -1);

	hpath(want, sizeof want, ".config/other");
	folder_ok(want, want, -1);
	/* The parent of a credential store may be granted; it stays hidden. */
	hpath(want, sizeof want, ".config");
	folder_ok(want, want, -1);
	folder_ok("/usr/share", "/usr/share", 1);
}

static void
test_folders_refused(void **state)
{
	char	path[PATH_MAX], anc[PATH_MAX];
	char	*slash;

	(void)state;
	folder_refused("/", NULL);
	hpath(path, sizeof path, "");
	folder_refused(path, "home");
	/* Through a spelling that resolves to HOME. */
	hpath(path, sizeof path, "projects/..");
	folder_refused(path, "home");

	/* Every ancestor of HOME: t_base, /tmp, ... (not "/"). */
	snprintf(anc, sizeof anc, "%s", t_home);
	while ((slash = strrchr(anc, '/')) != NULL && slash != anc) {
		*slash = '\0';
		folder_refused(anc, "home");
	}
	/* /tmp holds this HOME, so it is an ancestor and refused. */
	folder_refused("/tmp", NULL);

	hpath(path, sizeof path, ".ssh");
	folder_refused(path, "credential");
	hpath(path, sizeof path, ".ssh/sub");
	folder_refused(path, ".ssh");
	hpath(path, sizeof path, "projects/keys");
	folder_refused(path, ".ssh");
	hpath(path, sizeof path, "projects/keys/sub");
	folder_refused(path, ".ssh");
	hpath(path, sizeof path, ".config/gcloud");
	folder_refused(path, ".config/gcloud");

	/* A store that is a symlink: its real target is refused. */
	snprintf(path, sizeof path, "%s/elsewhere/aws-real", t_base);
	folder_refused(path, ".aws");
	snprintf(path, sizeof path, "%s/elsewhere/aws-real/sso", t_base);
	folder_refused(path, ".aws");
	hpath(path, sizeof path, ".aws");
	folder_refused(path, ".aws");

	folder_refused(t_root, "state root");
	snprintf(path, sizeof path, "%s/sandbox", t_root);
	folder_refused(path, "state root");

	folder_refused("/usr", "system root");
	folder_refused("/etc", "system root");
	folder_refused("/var", "system root");
	folder_refused("/proc", "system root");
	folder_refused("/usr/", "system root");
	folder_refused("/usr/share/..", "system root");

	hpath(path, sizeof path, "does-not-exist");
	folder_refused(path, "does not exist");
	hpath(path, sizeof path, "does-not-exist/deeper");
	folder_refused(path, "does not exist");
	hpath(path, sizeof path, "notes.txt");
	folder_refused(path, "not a directory");
	folder_refused("projects/app", "absolute");
	folder_refused("~/projects/app", "absolute");
	folder_refused("./app", "absolute");
}

static void
test_folders_dup(void **state)
{
	char	a[PATH_MAX], b[PATH_MAX], json[PATH_MAX * 3];
	struct policy p;

	(void)state;
	hpath(a, sizeof a, "projects/app");
	hpath(b, sizeof b, "projects/applink");
	snprintf(json, sizeof json, "{\"folders\":[{\"path\":\"%s\"},"
	    "{\"path\":\"%s\",\"readOnly\":true}]}", a, b);
	parse_err(json, &t_env, 0, "folders[1].path", b);
	parse_err(json, &t_env, 0, "folders[0]", NULL);

	/* Two different folders, each kept with its own readOnly. */
	hpath(b, sizeof b, ".config/other");
	snprintf(json, sizeof json, "{\"folders\":[{\"path\":\"%s\"},"
	    "{\"path\":\"%s\",\"readOnly\":true}]}", a, b);
	parse_ok(json, &t_env, 0, &p);
	assert_int_equal(p.nfolders, 2);
	assert_string_equal(p.folders[0].path, a);
	assert_false(p.folders[0].read_only);
	assert_string_equal(p.folders[1].path, b);
	assert_true(p.folders[1].read_only);
	policy_free(&p);

	/* One bad folder refuses the whole policy. */
	hpath(b, sizeof b, ".ssh");
	snprintf(json, sizeof json, "{\"enabled\":true,\"folders\":["
	    "{\"path\":\"%s\"},{\"path\":\"%s\"}]}", a, b);
	parse_err(json, &t_env, 0, "folders[1].path", ".ssh");
}

/* A control character in a folder path: refused, in a one-line message. */
static void
test_folders_control_chars(void **state)
{
	static const char *const rel[] = { "pro\njects", "projects/app\r",
	    NULL };
	char	path[PATH_MAX], json[PATH_MAX * 2], *j;
	size_t	i;

	(void)state;
	for (i = 0; rel[i] != NULL; i++) {
		hpath(path, sizeof path, rel[i]);
		j = folder_json(path, -1);
		snprintf(json, sizeof json, "%s", j);
		free(j);
		parse_err(json, &t_env, POLICY_FROM_REQUEST,
		    "folders[0].path", "control character");
	}
}

int
main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_round_trip_extras),
		cmocka_unit_test(test_canonical_idempotent),
		cmocka_unit_test(test_type_errors),
		cmocka_unit_test(test_read_mode),
		cmocka_unit_test(test_hosts_limits),
		cmocka_unit_test(test_hosts_dedup),
		cmocka_unit_test(test_loopback),
		cmocka_unit_test(test_folders_count),
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_trailing_garbage),
		cmocka_unit_test(test_extras_preserved_exactly),
		cmocka_unit_test(test_messages_one_line),
		cmocka_unit_test(test_forced),
		cmocka_unit_test(test_hosts_tsv),
		cmocka_unit_test(test_add_host),
		cmocka_unit_test(test_needs_restart),
	};
	const struct CMUnitTest folders[] = {
		cmocka_unit_test(test_folders_ok),
		cmocka_unit_test(test_folders_refused),
		cmocka_unit_test(test_folders_dup),
		cmocka_unit_test(test_folders_control_chars),
	};
	int	rc;

	rc = cmocka_run_group_tests_name("policy", pure, NULL, NULL);
	rc += cmocka_run_group_tests_name("policy folders", folders,
	    folders_setup, folders_teardown);
	return rc != 0;
}
