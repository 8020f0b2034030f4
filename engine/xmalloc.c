/*
 * Allocation wrappers: every caller may assume success.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "xmalloc.h"

void *
xmalloc(size_t size)
{
	void	*p;

	if (size == 0)
		size = 1;
	if ((p = malloc(size)) == NULL)
		fatal("xmalloc %zu bytes", size);
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void	*p;

	if (n == 0 || size == 0)
		n = size = 1;
	if ((p = calloc(n, size)) == NULL)
		fatal("xcalloc %zu x %zu bytes", n, size);
	return p;
}

void *
xreallocarray(void *old, size_t n, size_t size)
{
	void	*p;

	if (size != 0 && n > SIZE_MAX / size)
		fatalx("xreallocarray: %zu x %zu overflows", n, size);
	if (n == 0 || size == 0)
		n = size = 1;
	if ((p = realloc(old, n * size)) == NULL)
		fatal("xreallocarray %zu x %zu bytes", n, size);
	return p;
}

char *
xstrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		fatal("xstrdup");
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char	*p;

	if ((p = strndup(s, n)) == NULL)
		fatal("xstrndup");
	return p;
}

int
xvasprintf(char **ret, const char *fmt, va_list ap)
{
	int	n;

	if ((n = vasprintf(ret, fmt, ap)) < 0)
		fatal("xvasprintf");
	return n;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = xvasprintf(ret, fmt, ap);
	va_end(ap);
	return n;
}
