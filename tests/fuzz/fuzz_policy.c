/*
 * libFuzzer target for policy.c: parses the input as a request body
 * (env NULL: folder paths are taken as given, no filesystem checks) and,
 * when it is accepted, checks the canonical form is a fixed point: it
 * parses back to an equal policy and prints the same bytes again, in the
 * compact form and in the pretty form the store writes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static void
check(int ok)
{
	if (!ok)
		abort();
}

static void
round_trip(const struct policy *p, int pretty)
{
	struct policy	 q;
	char		 err[1024];
	char		*s1, *s2;

	s1 = policy_to_string(p, pretty);
	check(s1 != NULL);
	err[0] = '\0';
	/* The canonical form is what the store reads back. */
	check(policy_parse(&q, s1, strlen(s1), NULL, POLICY_FROM_STORE, err,
	    sizeof err) == 0);
	check(policy_equal(p, &q));
	check(policy_equal(&q, p));
	check(!policy_needs_restart(p, &q));
	s2 = policy_to_string(&q, pretty);
	check(s2 != NULL && strcmp(s1, s2) == 0);
	free(s2);
	free(s1);
	policy_free(&q);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy	p;
	char		err[1024];
	size_t		i;

	err[0] = '\0';
	if (policy_parse(&p, (const char *)data, size, NULL,
	    POLICY_FROM_REQUEST, err, sizeof err) != 0) {
		/* Refused: one line, and nothing left to free. */
		check(err[0] != '\0' && strchr(err, '\n') == NULL);
		check(p.nfolders == 0 && p.nhosts == 0 && p.nloopback == 0 &&
		    p.extra == NULL);
		policy_free(&p);
		return 0;
	}
	/* A request can never force the sandbox. */
	check(!p.forced);
	check(p.nfolders <= POLICY_MAX_FOLDERS);
	check(p.nhosts <= POLICY_MAX_HOSTS);
	check(p.nloopback <= POLICY_MAX_LOOPBACK);
	for (i = 0; i < p.nloopback; i++) {
		check(p.loopback[i] >= 1 && p.loopback[i] <= 65535);
		check(i == 0 || p.loopback[i - 1] < p.loopback[i]);
	}
	round_trip(&p, 0);
	round_trip(&p, 1);
	policy_free(&p);
	return 0;
}
