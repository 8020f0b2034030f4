/*
 * The app list: one row per app with what a person decides on (state,
 * sandbox badge, network, wants, restart needed), a filter, and the
 * start/stop/restart/logs/status keys.  Refreshed on engine events.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tui.h"
#include "xmalloc.h"

struct list {
	cJSON	*apps;		/* GET /api/space/apps "apps" */
	cJSON	*pending;	/* commands waiting for an approval */
	int	 sel;		/* index among the shown rows */
	int	 top;
	char	*filter;
};

static const char *
list_str(const cJSON *o, const char *k, const char *dflt)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

static void
list_load(struct tui *t, struct list *l)
{
	cJSON		*j, *job;
	const char	*st;

	if ((j = tui_get(t, "/api/space/apps")) == NULL)
		return;
	cJSON_Delete(l->apps);
	l->apps = cJSON_DetachItemFromObject(j, "apps");
	cJSON_Delete(j);
	/* Commands that wait for a person: servers and outside runs. */
	cJSON_Delete(l->pending);
	l->pending = cJSON_CreateArray();
	if ((j = tui_get(t, "/api/exec/jobs")) == NULL)
		return;
	cJSON_ArrayForEach(job, cJSON_GetObjectItemCaseSensitive(j, "jobs")) {
		st = list_str(job, "state", "");
		if (strcmp(st, "pending") == 0)
			cJSON_AddItemToArray(l->pending,
			    cJSON_Duplicate(job, 1));
	}
	cJSON_Delete(j);
}

/* Approvals at the bottom of the list, the oldest first. */
static void
list_draw_pending(struct tui *t, struct list *l, int y)
{
	const cJSON	*job;
	char		 line[1024];
	int		 first = 1;

	if (cJSON_GetArraySize(l->pending) == 0)
		return;
	draw_text(y++, 1, COLS - 2, draw_attr(t, PAIR_WANT, A_BOLD),
	    "Waiting for your approval (A approves, D denies the first):");
	cJSON_ArrayForEach(job, l->pending) {
		if (y >= LINES - 2)
			break;
		snprintf(line, sizeof line, "%s job %d  %s  %s%s%s  [%s]",
		    first ? ">" : " ", cJSON_GetObjectItemCaseSensitive(job,
		    "jobId")->valueint, list_str(job, "kind", "?"),
		    list_str(job, "command", "?"),
		    list_str(job, "reason", NULL) != NULL ? "  because: " : "",
		    list_str(job, "reason", ""), list_str(job, "sandbox", "?"));
		draw_text(y++, 2, COLS - 4, first ? A_BOLD : 0, line);
		first = 0;
	}
}

static void
list_decide(struct tui *t, struct list *l, const char *verb)
{
	const cJSON	*job = cJSON_GetArrayItem(l->pending, 0);
	cJSON		*j;
	char		*path, *err;
	int		 id;

	if (job == NULL) {
		tui_message(t, 1, "no command is waiting for an approval");
		return;
	}
	id = cJSON_GetObjectItemCaseSensitive(job, "jobId")->valueint;
	xasprintf(&path, "/api/exec/jobs/%d/%s", id, verb);
	if (tui_send(t, "POST", path, NULL, &j, &err) != 0) {
		tui_message(t, 1, "job %d: %s", id, err);
		free(err);
	} else
		tui_message(t, 0, "job %d %s", id, strcmp(verb, "approve") ==
		    0 ? "approved" : "denied");
	cJSON_Delete(j);
	free(path);
	list_load(t, l);
}

static int
list_shown(const struct list *l, const cJSON *app)
{
	if (l->filter == NULL)
		return 1;
	return strstr(list_str(app, "id", ""), l->filter) != NULL ||
	    strcasestr(list_str(app, "name", ""), l->filter) != NULL;
}

/* The n-th shown app, or NULL; *count gets how many are shown. */
static const cJSON *
list_nth(const struct list *l, int n, int *count)
{
	const cJSON	*a, *found = NULL;
	int		 i = 0;

	cJSON_ArrayForEach(a, l->apps) {
		if (!list_shown(l, a))
			continue;
		if (i == n)
			found = a;
		i++;
	}
	if (count != NULL)
		*count = i;
	return found;
}

static void
list_badges(struct tui *t, const cJSON *app, char *badge, size_t blen,
    char *net, size_t nlen)
{
	const cJSON	*sb = cJSON_GetObjectItemCaseSensitive(app, "sandbox");
	const char	*nw;
	int		 n;

	if (!cJSON_IsObject(sb)) {
		snprintf(badge, blen, "?");
		snprintf(net, nlen, "?");
		return;
	}
	if (!cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sb, "enabled")))
		snprintf(badge, blen, "off");
	else
		snprintf(badge, blen, "%s%s", list_str(sb, "readMode", "open"),
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(sb,
		    "forced")) ? " forced" :
		    "");
	nw = list_str(sb, "network", "all");
	n = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(sb, "hosts"));
	if (strcmp(nw, "off") == 0)
		snprintf(net, nlen, "none");
	else if (strcmp(nw, "hosts") == 0)
		snprintf(net, nlen, "%d site%s", n, n == 1 ? "" : "s");
	else
		snprintf(net, nlen, "all");
}

static void
list_draw(struct tui *t, struct tui_screen *s)
{
	struct list	*l = s->data;
	const cJSON	*app;
	char		 line[512], badge[64], net[32], wants[16], title[128];
	int		 count, rows, i, y, attr, nw, npend;
	const char	*err;

	snprintf(title, sizeof title, "spacebox %s Space Apps%s%s%s",
	    draw_glyph(t, "\xe2\x80\x94", "-"),
	    l->filter != NULL ? "  (filter: " : "",
	    l->filter != NULL ? l->filter : "", l->filter != NULL ? ")" : "");
	draw_frame(t, title, "Enter open  s start  x stop  r restart  "
	    "l log  i info  / filter  ? help  q quit");
	npend = cJSON_GetArraySize(l->pending);
	rows = LINES - 5 - (npend > 0 ? npend + 2 : 0);
	if (rows < 3)
		rows = 3;
	list_nth(l, -1, &count);
	if (l->sel >= count)
		l->sel = count > 0 ? count - 1 : 0;
	if (l->sel < l->top)
		l->top = l->sel;
	if (l->sel >= l->top + rows)
		l->top = l->sel - rows + 1;
	snprintf(line, sizeof line, "%-16s %-16s %-8s %-13s %-8s %-5s %s",
	    "ID", "NAME", "STATE", "SANDBOX", "NETWORK", "WANTS", "");
	draw_text(1, 1, COLS - 2, A_BOLD, line);
	if (count == 0)
		draw_text(3, 2, COLS - 4, 0, l->filter != NULL ?
		    "no app matches the filter" : "no apps in this workspace");
	for (i = l->top, y = 2; i < count && y < 2 + rows; i++) {
		app = list_nth(l, i, NULL);
		list_badges(t, app, badge, sizeof badge, net, sizeof net);
		nw = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(app,
		    "wants"));
		if (nw > 0)
			snprintf(wants, sizeof wants, "+%d", nw);
		else
			snprintf(wants, sizeof wants, "-");
		snprintf(line, sizeof line, "%-16.16s %-16.16s %-8.8s %-13.13s "
		    "%-8.8s %-5s %s", list_str(app, "id", "?"), list_str(app, "name",
		    ""), list_str(app, "state", "?"), badge, net, wants,
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(app,
		    "restartRequired")) ? "restart" : "");
		attr = i == l->sel ? draw_attr(t, PAIR_SELECT, A_REVERSE) : 0;
		if (attr != 0) {
			attron(attr);
			mvhline(y, 0, ' ', COLS);
			attroff(attr);
		}
		draw_text(y++, 1, COLS - 2, attr, line);
		err = list_str(app, "error", NULL);
		if (err == NULL)
			err = list_str(app, "policyError", NULL);
		if (err != NULL && y < 2 + rows)
			draw_text(y++, 4, COLS - 6, draw_attr(t, PAIR_ERROR,
			    A_BOLD), err);
	}
	list_draw_pending(t, l, 3 + rows);
}

static void
list_control(struct tui *t, const char *id, const char *verb)
{
	cJSON	*j;
	char	*path, *err;

	xasprintf(&path, "/api/space/apps/%s/%s", id, verb);
	if (tui_send(t, "POST", path, NULL, &j, &err) != 0) {
		tui_message(t, 1, "%s: %s", id, err);
		free(err);
	} else
		tui_message(t, 0, "%s: %s", id, strcmp(verb, "stop") == 0 ?
		    "stopping" : "starting");
	cJSON_Delete(j);
	free(path);
}

static int
list_action(struct tui *t, struct tui_screen *s, int action, int key)
{
	struct list	*l = s->data;
	const cJSON	*app;
	const char	*id;
	char		*f;
	int		 count;

	app = list_nth(l, l->sel, &count);
	id = app != NULL ? list_str(app, "id", NULL) : NULL;
	switch (action) {
	case A_UP:
		if (l->sel > 0)
			l->sel--;
		break;
	case A_DOWN:
		if (l->sel + 1 < count)
			l->sel++;
		break;
	case A_PGUP:
		l->sel = l->sel > LINES - 6 ? l->sel - (LINES - 6) : 0;
		break;
	case A_PGDN:
		l->sel = l->sel + LINES - 6 < count ? l->sel + LINES - 6 :
		    count - 1;
		break;
	case A_HOME:
		l->sel = 0;
		break;
	case A_END:
		l->sel = count - 1;
		break;
	case A_FILTER:
		f = prompt_line(t, "filter: ", l->filter, 0);
		free(l->filter);
		l->filter = f;
		l->sel = 0;
		break;
	case A_BACK:
		if (l->filter != NULL) {
			free(l->filter);
			l->filter = NULL;
			break;
		}
		return TUI_POP;
	case A_OPEN:
		if (id != NULL)
			tui_push(t, dialog_screen(t, id));
		break;
	case A_START:
	case A_STOP:
	case A_RESTART:
		if (id != NULL)
			list_control(t, id, action == A_START ? "start" :
			    action == A_STOP ? "stop" : "restart");
		list_load(t, l);
		break;
	case A_LOGS:
		if (id != NULL)
			tui_push(t, logs_screen(t, id));
		break;
	case A_STATUS:
		if (id != NULL)
			tui_push(t, status_screen(t, id));
		break;
	case A_APPROVE:
	case A_DENY:
		list_decide(t, l, action == A_APPROVE ? "approve" : "deny");
		break;
	default:
		break;
	}
	return TUI_KEEP;
}

static void
list_click(struct tui *t, struct tui_screen *s, int y, int x)
{
	struct list	*l = s->data;
	int		 count;

	list_nth(l, -1, &count);
	if (y >= 2 && l->top + y - 2 < count)
		l->sel = l->top + y - 2;
}

static void
list_event(struct tui *t, struct tui_screen *s, const cJSON *ev)
{
	list_load(t, s->data);
}

static void
list_free(struct tui_screen *s)
{
	struct list	*l = s->data;

	cJSON_Delete(l->apps);
	cJSON_Delete(l->pending);
	free(l->filter);
	free(l);
}

struct tui_screen *
list_screen(struct tui *t)
{
	struct tui_screen	*s;
	struct list		*l;

	l = xcalloc(1, sizeof *l);
	s = xcalloc(1, sizeof *s);
	s->title = "apps";
	s->ctx = TUI_CTX_LIST;
	s->data = l;
	s->draw = list_draw;
	s->action = list_action;
	s->click = list_click;
	s->event = list_event;
	s->free = list_free;
	s->stream_fd = -1;
	list_load(t, l);
	return s;
}
