/*
 * Read-only views: an app's engine-owned log, followed as it grows, and
 * its status (what the running process actually got: isolation,
 * namespaces, granted folders, proxy port and counters).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "xmalloc.h"

#define VIEW_MAX_LINES	5000

struct view {
	char	*id;
	char	**lines;
	int	 n;
	int	 top;
	int	 follow;
	char	*partial;	/* an unfinished last line */
	int	 is_logs;
};

static void
view_clear(struct view *v)
{
	int	i;

	for (i = 0; i < v->n; i++)
		free(v->lines[i]);
	free(v->lines);
	v->lines = NULL;
	v->n = 0;
}

static void
view_add(struct view *v, const char *line)
{
	if (v->n == VIEW_MAX_LINES) {
		free(v->lines[0]);
		memmove(&v->lines[0], &v->lines[1], (size_t)(v->n - 1) *
		    sizeof v->lines[0]);
		v->n--;
	}
	v->lines = xreallocarray(v->lines, (size_t)v->n + 1,
	    sizeof *v->lines);
	v->lines[v->n++] = xstrdup(line);
}

/* Log text arrives in pieces: split it into lines. */
static void
view_feed(struct tui *t, struct tui_screen *s, const char *data, size_t len)
{
	struct view	*v = s->data;
	char		*buf, *p, *nl;

	xasprintf(&buf, "%s%.*s", v->partial != NULL ? v->partial : "",
	    (int)len, data);
	free(v->partial);
	v->partial = NULL;
	for (p = buf; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = '\0';
		view_add(v, p);
	}
	if (*p != '\0')
		v->partial = xstrdup(p);
	free(buf);
}

static void
view_draw(struct tui *t, struct tui_screen *s)
{
	struct view	*v = s->data;
	char		 title[200];
	int		 rows = LINES - 4, i, y;

	snprintf(title, sizeof title, "%s %s %s%s", v->is_logs ? "Log" :
	    "Status", draw_glyph(t, "\xe2\x80\x94", "-"), v->id,
	    v->is_logs && v->follow ? "  (following)" : "");
	draw_frame(t, title, v->is_logs ? "Up/Down scroll  f follow  "
	    "q back  ? help" : "Up/Down scroll  q back  ? help");
	if (v->follow || v->top > v->n - rows)
		v->top = v->n - rows;
	if (v->top < 0)
		v->top = 0;
	for (i = v->top, y = 1; i < v->n && y < 1 + rows; i++, y++)
		draw_text(y, 1, COLS - 2, 0, v->lines[i]);
}

static int
view_action(struct tui *t, struct tui_screen *s, int action, int key)
{
	struct view	*v = s->data;

	switch (action) {
	case A_UP:
		v->follow = 0;
		if (v->top > 0)
			v->top--;
		break;
	case A_DOWN:
		v->top++;
		break;
	case A_PGUP:
		v->follow = 0;
		v->top -= LINES - 5;
		break;
	case A_PGDN:
		v->top += LINES - 5;
		break;
	case A_HOME:
		v->follow = 0;
		v->top = 0;
		break;
	case A_END:
	case A_FOLLOW:
		v->follow = 1;
		break;
	case A_BACK:
		return TUI_POP;
	default:
		break;
	}
	return TUI_KEEP;
}

static void
view_free(struct tui_screen *s)
{
	struct view	*v = s->data;

	view_clear(v);
	free(v->partial);
	free(v->id);
	free(v);
}

static struct tui_screen *
view_new(const char *id, int is_logs)
{
	struct tui_screen	*s;
	struct view		*v;

	v = xcalloc(1, sizeof *v);
	v->id = xstrdup(id);
	v->is_logs = is_logs;
	v->follow = is_logs;
	s = xcalloc(1, sizeof *s);
	s->title = is_logs ? "logs" : "status";
	s->ctx = TUI_CTX_VIEW;
	s->data = v;
	s->draw = view_draw;
	s->action = view_action;
	s->free = view_free;
	s->stream_fd = -1;
	return s;
}

struct tui_screen *
logs_screen(struct tui *t, const char *id)
{
	struct tui_screen	*s = view_new(id, 1);
	char			*path;

	xasprintf(&path, "/api/space/apps/%s/logs?follow=1", id);
	s->stream_fd = tui_stream_open(t, path);
	s->stream = view_feed;
	free(path);
	return s;
}

/* Status: the runtime answer, as lines; refreshed on status events. */
static void
status_load(struct tui *t, struct tui_screen *s)
{
	struct view	*v = s->data;
	const cJSON	*p, *g, *x, *st;
	cJSON		*j;
	char		*path, line[1200];

	xasprintf(&path, "/api/space/apps/%s/runtime", v->id);
	j = tui_get(t, path);
	free(path);
	if (j == NULL)
		return;
	view_clear(v);
#define STR(o, k) (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(o, k)) ? \
	cJSON_GetObjectItemCaseSensitive(o, k)->valuestring : "-")
	snprintf(line, sizeof line, "state        %s", STR(j, "state"));
	view_add(v, line);
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(j, "error"))) {
		snprintf(line, sizeof line, "problem      %s", STR(j, "error"));
		view_add(v, line);
	}
	snprintf(line, sizeof line, "last exit    %s", STR(j, "lastExit"));
	view_add(v, line);
	p = cJSON_GetObjectItemCaseSensitive(j, "process");
	if (cJSON_IsObject(p)) {
		snprintf(line, sizeof line, "pid          %d (sandbox PID 1: "
		    "%d)", cJSON_GetObjectItemCaseSensitive(p, "pid")->valueint,
		    cJSON_IsNumber(x = cJSON_GetObjectItemCaseSensitive(p,
		    "sandboxPid")) ? x->valueint : 0);
		view_add(v, line);
		snprintf(line, sizeof line, "port         127.0.0.1:%d",
		    cJSON_GetObjectItemCaseSensitive(p, "port")->valueint);
		view_add(v, line);
		snprintf(line, sizeof line, "isolation    %s", STR(p,
		    "isolation"));
		view_add(v, line);
		snprintf(line, sizeof line, "namespaces   user pid ipc uts "
		    "cgroup%s", cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p,
		    "networkNamespace")) ? " net (own network)" :
		    " (network shared with the host)");
		view_add(v, line);
		snprintf(line, sizeof line, "launch       %s", STR(p,
		    "logLine"));
		view_add(v, line);
		cJSON_ArrayForEach(g, cJSON_GetObjectItemCaseSensitive(p,
		    "grants")) {
			snprintf(line, sizeof line, "grant        %s  %s  (%s)",
			    STR(g, "access"), STR(g, "path"), STR(g, "why"));
			view_add(v, line);
		}
	}
	p = cJSON_GetObjectItemCaseSensitive(j, "proxy");
	if (cJSON_IsObject(p)) {
		st = cJSON_GetObjectItemCaseSensitive(p, "stats");
		snprintf(line, sizeof line, "proxy        127.0.0.1:%d, %d "
		    "allowed, %d refused",
		    cJSON_GetObjectItemCaseSensitive(p, "port")->valueint,
		    cJSON_GetObjectItemCaseSensitive(st, "allowed")->valueint,
		    cJSON_GetObjectItemCaseSensitive(st, "denied")->valueint);
		view_add(v, line);
	}
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j,
	    "restartRequired")))
		view_add(v, "restart      saved changes apply at the next "
		    "restart");
#undef STR
	cJSON_Delete(j);
}

static void
status_event(struct tui *t, struct tui_screen *s, const cJSON *ev)
{
	struct view	*v = s->data;
	const cJSON	*id = cJSON_GetObjectItemCaseSensitive(ev, "appId");

	if (cJSON_IsString(id) && strcmp(id->valuestring, v->id) == 0)
		status_load(t, s);
}

struct tui_screen *
status_screen(struct tui *t, const char *id)
{
	struct tui_screen	*s = view_new(id, 0);

	s->event = status_event;
	status_load(t, s);
	return s;
}
