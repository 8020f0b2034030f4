/*
 * The Sandbox dialog for one app, top to bottom as in the seed: the
 * platform note, the sandbox toggle, Folders (open/strict, what is always
 * granted, granted folders, Add folder...), Network (everything / only
 * these sites / nothing, the site list, the live "This app wants" line),
 * This machine (engine API, other local ports), and Cancel / Save /
 * Save & restart.
 *
 * Edits change a working copy of the policy; Save sends it whole (PUT),
 * and the engine's one-line refusal is shown under the field it names.
 * Allowing a wanted site is immediate: it goes to the engine at once, as
 * the seed's one click does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"
#include "tui.h"
#include "xmalloc.h"

#define DLG_KEYS "Tab move  Space toggle  a allow/add  d remove  S save  " \
	"R save+restart  ? help"

enum field {
	F_ENABLE, F_READ_OPEN, F_READ_STRICT, F_FOLDER, F_ADD_FOLDER,
	F_NET_ALL, F_NET_HOSTS, F_NET_OFF, F_SITE, F_ADD_SITE, F_WANT,
	F_DAEMON, F_PORT, F_ADD_PORT, F_CANCEL, F_SAVE, F_SAVE_RESTART
};

/* Which part of the dialog an engine error belongs under. */
enum group {
	G_NONE, G_ENABLE, G_READ, G_FOLDERS, G_NETWORK, G_MACHINE
};

/* One focusable thing as laid out by the last draw. */
struct item {
	enum field	 f;
	int		 index;
	int		 y, x, w;	/* screen position, for clicks */
};

struct dialog {
	char		*id;
	cJSON		*config;	/* the working copy */
	cJSON		*effective;
	cJSON		*wants;		/* proxy.stats.recentDenied */
	int		 forced;
	int		 focus;		/* index into items */
	enum field	 focus_f;	/* to keep focus across rebuilds */
	int		 focus_i;
	int		 scroll;
	struct item	 items[256];
	int		 nitems;
	int		 lines;		/* laid-out height */
	enum group	 err_group;
	char		*err;
	int		 dirty;
};

static const char *
dlg_str(const cJSON *o, const char *k, const char *dflt)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : dflt;
}

static int
dlg_true(const cJSON *o, const char *k)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, k));
}

static cJSON *
dlg_list(struct dialog *d, const char *k)
{
	cJSON	*a = cJSON_GetObjectItemCaseSensitive(d->config, k);

	if (!cJSON_IsArray(a)) {
		a = cJSON_CreateArray();
		cJSON_ReplaceItemInObjectCaseSensitive(d->config, k, a);
		if (cJSON_GetObjectItemCaseSensitive(d->config, k) != a)
			cJSON_AddItemToObject(d->config, k, a);
	}
	return a;
}

static void
dlg_set(struct dialog *d, const char *k, cJSON *v)
{
	if (cJSON_GetObjectItemCaseSensitive(d->config, k) != NULL)
		cJSON_ReplaceItemInObjectCaseSensitive(d->config, k, v);
	else
		cJSON_AddItemToObject(d->config, k, v);
	d->dirty = 1;
}

/* A wanted site the working list does not cover (wildcards included). */
static int
dlg_want_open(struct dialog *d, const char *host)
{
	const cJSON	*h;

	cJSON_ArrayForEach(h, cJSON_GetObjectItemCaseSensitive(d->config,
	    "hosts")) {
		if (cJSON_IsString(h) && host_match(h->valuestring, host))
			return 0;
	}
	return 1;
}

/* Fetch the app's policy; keep the working copy unless asked. */
static int
dlg_load(struct tui *t, struct dialog *d, int config_too)
{
	cJSON		*j, *proxy, *stats;
	char		*path;

	xasprintf(&path, "/api/space/apps/%s/sandbox", d->id);
	j = tui_get(t, path);
	free(path);
	if (j == NULL)
		return -1;
	if (config_too) {
		cJSON_Delete(d->config);
		d->config = cJSON_DetachItemFromObject(j, "config");
		d->forced = dlg_true(d->config, "forced");
		d->dirty = 0;
	}
	cJSON_Delete(d->effective);
	d->effective = cJSON_DetachItemFromObject(j, "effective");
	cJSON_Delete(d->wants);
	d->wants = NULL;
	proxy = cJSON_GetObjectItemCaseSensitive(j, "proxy");
	stats = cJSON_GetObjectItemCaseSensitive(proxy, "stats");
	if (cJSON_IsObject(stats))
		d->wants = cJSON_DetachItemFromObject(stats, "recentDenied");
	cJSON_Delete(j);
	return 0;
}

/* Layout. */

struct layout {
	struct tui	*t;
	struct dialog	*d;
	int		 vy;		/* virtual line */
	int		 top, rows;	/* visible window */
	int		 width;
};

static int
lay_visible(struct layout *L)
{
	return L->vy >= L->top && L->vy < L->top + L->rows;
}

static int
lay_y(struct layout *L)
{
	return 2 + L->vy - L->top;
}

static void
lay_text(struct layout *L, int indent, int attr, const char *s)
{
	if (lay_visible(L))
		draw_text(lay_y(L), 2 + indent, L->width - indent, attr, s);
	L->vy++;
}

static void
lay_wrap(struct layout *L, int indent, int attr, const char *s)
{
	char	*copy, *p, *line;
	size_t	 len, cut;
	int	 w = L->width - indent;

	/* Line by line, so that clipping to the window works. */
	copy = xstrdup(s);
	p = copy;
	while (*p != '\0') {
		len = strlen(p);
		if ((int)len <= w)
			cut = len;
		else {
			for (cut = (size_t)w; cut > 0 && p[cut] != ' '; cut--)
				;
			if (cut == 0)
				cut = (size_t)w;
		}
		line = xstrndup(p, cut);
		lay_text(L, indent, attr, line);
		free(line);
		p += cut;
		while (*p == ' ')
			p++;
	}
	free(copy);
}

/* A focusable item on its own line. */
static void
lay_item(struct layout *L, enum field f, int index, int indent,
    const char *s)
{
	struct dialog	*d = L->d;
	struct item	*it;
	int		 focused, attr;

	if (d->nitems == (int)(sizeof d->items / sizeof d->items[0]))
		return;
	it = &d->items[d->nitems];
	it->f = f;
	it->index = index;
	it->y = lay_visible(L) ? lay_y(L) : -1;
	it->x = 2 + indent;
	it->w = (int)strlen(s);
	focused = d->nitems == d->focus;
	d->nitems++;
	attr = focused ? draw_attr(L->t, PAIR_SELECT, A_REVERSE) : 0;
	/* A marker as well as the colour: NO_COLOR and screen readers. */
	if (focused && lay_visible(L))
		draw_text(lay_y(L), 0, 1, A_BOLD, ">");
	if (focused && L->rows > 0 && (L->vy < L->top ||
	    L->vy >= L->top + L->rows)) {
		/* Scroll the focus into view; the next draw shows it. */
		d->scroll = L->vy < L->top ? L->vy : L->vy - L->rows + 1;
	}
	lay_text(L, indent, attr, s);
}

static void
lay_error(struct layout *L, enum group g)
{
	struct dialog	*d = L->d;
	char		 line[1100];

	if (d->err == NULL || d->err_group != g)
		return;
	snprintf(line, sizeof line, "%s %s", draw_glyph(L->t, "\xe2\x9c\x97",
	    "!"), d->err);
	lay_wrap(L, 4, draw_attr(L->t, PAIR_ERROR, A_BOLD), line);
}

static const char *
lay_check(struct tui *t, int on)
{
	return on ? "[x]" : "[ ]";
}

static const char *
lay_radio(struct tui *t, int on)
{
	return on ? draw_glyph(t, "(\xe2\x80\xa2)", "(*)") : "( )";
}

/* "This app wants: + x.com + y.org" with each host clickable. */
static void
lay_wants(struct layout *L)
{
	struct dialog	*d = L->d;
	const cJSON	*w;
	struct item	*it;
	char		 label[300];
	int		 x = 2 + 4, i = 0, any = 0, y, attr;

	cJSON_ArrayForEach(w, d->wants) {
		if (cJSON_IsString(w) && dlg_want_open(d, w->valuestring))
			any = 1;
	}
	if (!any)
		return;
	y = lay_visible(L) ? lay_y(L) : -1;
	if (y != -1)
		draw_text(y, x, L->width, draw_attr(L->t, PAIR_WANT, A_BOLD),
		    "This app wants:");
	x += 16;
	cJSON_ArrayForEach(w, d->wants) {
		if (!cJSON_IsString(w) || !dlg_want_open(d, w->valuestring)) {
			i++;
			continue;
		}
		snprintf(label, sizeof label, "+ %s", w->valuestring);
		if (x + (int)strlen(label) > 2 + L->width) {
			/* Wrap onto the next line. */
			L->vy++;
			y = lay_visible(L) ? lay_y(L) : -1;
			x = 2 + 20;
		}
		if (d->nitems < (int)(sizeof d->items / sizeof d->items[0])) {
			it = &d->items[d->nitems];
			it->f = F_WANT;
			it->index = i;
			it->y = y;
			it->x = x;
			it->w = (int)strlen(label);
			attr = d->nitems == d->focus ? draw_attr(L->t,
			    PAIR_SELECT, A_REVERSE) : draw_attr(L->t,
			    PAIR_WANT, A_BOLD);
			if (d->nitems == d->focus && y != -1)
				draw_text(y, 0, 1, A_BOLD, ">");
			d->nitems++;
			if (y != -1)
				draw_text(y, x, (int)strlen(label), attr,
				    label);
		}
		x += (int)strlen(label) + 2;
		i++;
	}
	L->vy++;
	lay_wrap(L, 4, draw_attr(L->t, PAIR_DIM, A_DIM), "a or a click "
	    "allows a wanted site at once");
}

static void
dlg_layout(struct tui *t, struct dialog *d, int draw)
{
	struct layout	 L;
	const cJSON	*v, *a;
	char		 line[600];
	const char	*rm, *net;
	int		 i, enabled;

	memset(&L, 0, sizeof L);
	L.t = t;
	L.d = d;
	L.top = d->scroll;
	L.rows = draw ? LINES - 5 : 0;
	L.width = COLS - 4;
	d->nitems = 0;

	enabled = dlg_true(d->config, "enabled");
	rm = dlg_str(d->config, "readMode", "open");
	net = dlg_str(d->config, "network", "all");

	if (!enabled && (v = cJSON_GetObjectItemCaseSensitive(d->effective,
	    "note")) != NULL && cJSON_IsString(v))
		lay_wrap(&L, 0, draw_attr(t, PAIR_DIM, A_DIM), v->valuestring);
	snprintf(line, sizeof line, "%s Run this app inside the sandbox%s",
	    lay_check(t, enabled), d->forced ? "  (locked: its manifest "
	    "declares sandbox.force)" : "");
	lay_item(&L, F_ENABLE, 0, 0, line);
	lay_wrap(&L, 4, 0, "It may write only its own folders; what it reads "
	    "and reaches is set below.");
	lay_error(&L, G_ENABLE);
	L.vy++;

	lay_text(&L, 0, A_BOLD, "Folders");
	lay_text(&L, 2, 0, "May read:");
	snprintf(line, sizeof line, "%s Open: everything except credentials "
	    "and the engine's data", lay_radio(t, strcmp(rm, "strict") != 0));
	lay_item(&L, F_READ_OPEN, 0, 4, line);
	snprintf(line, sizeof line, "%s Strict: only system folders, its own "
	    "and the folders below", lay_radio(t, strcmp(rm, "strict") == 0));
	lay_item(&L, F_READ_STRICT, 0, 4, line);
	lay_error(&L, G_READ);
	lay_wrap(&L, 2, draw_attr(t, PAIR_DIM, A_DIM), "Always granted "
	    "(read-write): its install folder, its 5 data folders, a private "
	    "TMPDIR");
	i = 0;
	cJSON_ArrayForEach(a, dlg_list(d, "folders")) {
		snprintf(line, sizeof line, "%s  %s", dlg_true(a, "readOnly") ?
		    "ro" : "rw", dlg_str(a, "path", "?"));
		lay_item(&L, F_FOLDER, i++, 4, line);
	}
	snprintf(line, sizeof line, "Add folder%s", draw_glyph(t,
	    "\xe2\x80\xa6", "..."));
	lay_item(&L, F_ADD_FOLDER, 0, 4, line);
	lay_error(&L, G_FOLDERS);
	L.vy++;

	lay_text(&L, 0, A_BOLD, "Network");
	snprintf(line, sizeof line, "%s Everything", lay_radio(t,
	    strcmp(net, "all") == 0));
	lay_item(&L, F_NET_ALL, 0, 4, line);
	snprintf(line, sizeof line, "%s Only these sites", lay_radio(t,
	    strcmp(net, "hosts") == 0));
	lay_item(&L, F_NET_HOSTS, 0, 4, line);
	i = 0;
	cJSON_ArrayForEach(a, dlg_list(d, "hosts")) {
		snprintf(line, sizeof line, "%s", cJSON_IsString(a) ?
		    a->valuestring : "?");
		lay_item(&L, F_SITE, i++, 8, line);
	}
	snprintf(line, sizeof line, "Add site%s", draw_glyph(t,
	    "\xe2\x80\xa6", "..."));
	lay_item(&L, F_ADD_SITE, 0, 8, line);
	lay_wants(&L);
	snprintf(line, sizeof line, "%s Nothing", lay_radio(t,
	    strcmp(net, "off") == 0));
	lay_item(&L, F_NET_OFF, 0, 4, line);
	lay_error(&L, G_NETWORK);
	L.vy++;

	lay_text(&L, 0, A_BOLD, "This machine");
	snprintf(line, sizeof line, "%s Call the engine API (daemonApi)",
	    lay_check(t, dlg_true(d->config, "daemonApi")));
	lay_item(&L, F_DAEMON, 0, 2, line);
	lay_wrap(&L, 6, draw_attr(t, PAIR_DIM, A_DIM), "needed for the AI "
	    "bridge; switch it off for apps that do not use it");
	lay_text(&L, 2, 0, "Other local ports:");
	i = 0;
	cJSON_ArrayForEach(a, dlg_list(d, "loopback")) {
		snprintf(line, sizeof line, "127.0.0.1:%d", a->valueint);
		lay_item(&L, F_PORT, i++, 4, line);
	}
	snprintf(line, sizeof line, "Add port%s", draw_glyph(t,
	    "\xe2\x80\xa6", "..."));
	lay_item(&L, F_ADD_PORT, 0, 4, line);
	lay_error(&L, G_MACHINE);
	L.vy++;

	/* The three buttons share the last line. */
	lay_item(&L, F_CANCEL, 0, 0, "[ Cancel ]");
	L.vy--;
	lay_item(&L, F_SAVE, 0, 14, "[ Save ]");
	L.vy--;
	lay_item(&L, F_SAVE_RESTART, 0, 26, "[ Save & restart ]");
	d->lines = L.vy;
	if (draw && L.top > 0)
		draw_text(1, COLS - 12, 10, draw_attr(t, PAIR_DIM, A_DIM),
		    draw_glyph(t, "\xe2\x96\xb2 more", "^ more"));
	if (draw && L.top + L.rows < L.vy)
		draw_text(LINES - 3, COLS - 12, 10, draw_attr(t, PAIR_DIM,
		    A_DIM), draw_glyph(t, "\xe2\x96\xbc more", "v more"));
}

static void
dlg_draw(struct tui *t, struct tui_screen *s)
{
	struct dialog	*d = s->data;
	char		 title[200];
	int		 i, old;

	snprintf(title, sizeof title, "Sandbox %s %s%s", draw_glyph(t,
	    "\xe2\x80\x94", "-"), d->id, d->dirty ? "  (not saved)" : "");
	draw_frame(t, title, DLG_KEYS);
	if (d->config == NULL)
		return;
	/* Keep the focus on the same thing across list changes. */
	dlg_layout(t, d, 0);
	for (i = 0; i < d->nitems; i++) {
		if (d->items[i].f == d->focus_f &&
		    d->items[i].index == d->focus_i) {
			d->focus = i;
			break;
		}
	}
	if (d->focus >= d->nitems)
		d->focus = d->nitems - 1;
	old = d->scroll;
	erase();
	draw_frame(t, title, DLG_KEYS);
	dlg_layout(t, d, 1);
	if (d->scroll != old) {
		erase();
		draw_frame(t, title, DLG_KEYS);
		dlg_layout(t, d, 1);
	}
}

/* Editing. */

static void
dlg_error(struct dialog *d, const char *err)
{
	free(d->err);
	d->err = xstrdup(err);
	if (strncmp(err, "folders", 7) == 0)
		d->err_group = G_FOLDERS;
	else if (strncmp(err, "hosts", 5) == 0 ||
	    strncmp(err, "network", 7) == 0 || strncmp(err, "host ", 5) == 0)
		d->err_group = G_NETWORK;
	else if (strncmp(err, "loopback", 8) == 0 ||
	    strncmp(err, "daemonApi", 9) == 0)
		d->err_group = G_MACHINE;
	else if (strncmp(err, "readMode", 8) == 0)
		d->err_group = G_READ;
	else
		d->err_group = G_ENABLE;
}

static void
dlg_clear_error(struct dialog *d)
{
	free(d->err);
	d->err = NULL;
	d->err_group = G_NONE;
}

static void
dlg_folder_chosen(struct tui *t, void *arg, const char *path, int ro)
{
	struct dialog	*d = arg;
	cJSON		*f;

	f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "path", path);
	cJSON_AddBoolToObject(f, "readOnly", ro);
	cJSON_AddItemToArray(dlg_list(d, "folders"), f);
	d->dirty = 1;
	dlg_clear_error(d);
	tui_message(t, 0, "%s added %s; Save to apply", path, ro ?
	    "read-only" : "read-write");
}

/* Allow a wanted site now, as the seed's one click does. */
static void
dlg_allow(struct tui *t, struct dialog *d, const char *host)
{
	cJSON	*o, *j;
	char	*path, *body, *err;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "host", host);
	body = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	xasprintf(&path, "/api/space/apps/%s/sandbox/hosts", d->id);
	if (tui_send(t, "POST", path, body, &j, &err) != 0) {
		dlg_error(d, err);
		free(err);
	} else {
		cJSON_AddItemToArray(dlg_list(d, "hosts"),
		    cJSON_CreateString(host));
		tui_message(t, 0, "allowed %s%s", host, cJSON_IsTrue(
		    cJSON_GetObjectItemCaseSensitive(j, "hostsAppliedLive")) ?
		    "; it applies to the running app now" : "");
		cJSON_Delete(j);
	}
	cJSON_free(body);
	free(path);
}

static void
dlg_add(struct tui *t, struct dialog *d, enum field f)
{
	char	*in, *end;
	long	 port;

	switch (f) {
	case F_FOLDER:
	case F_ADD_FOLDER:
		tui_push(t, picker_screen(t, NULL, dlg_folder_chosen, d));
		break;
	case F_SITE:
	case F_ADD_SITE:
		if ((in = prompt_line(t, "add site: ", NULL, 0)) != NULL) {
			cJSON_AddItemToArray(dlg_list(d, "hosts"),
			    cJSON_CreateString(in));
			d->dirty = 1;
			free(in);
		}
		break;
	case F_PORT:
	case F_ADD_PORT:
		if ((in = prompt_line(t, "add local port: ", NULL, 0)) ==
		    NULL)
			break;
		port = strtol(in, &end, 10);
		if (*end != '\0' || end == in)
			dlg_error(d, "loopback: give a port number");
		else {
			cJSON_AddItemToArray(dlg_list(d, "loopback"),
			    cJSON_CreateNumber((double)port));
			d->dirty = 1;
		}
		free(in);
		break;
	default:
		break;
	}
}

static void
dlg_remove(struct dialog *d, const struct item *it)
{
	const char	*k = it->f == F_FOLDER ? "folders" : it->f == F_SITE ?
	    "hosts" : it->f == F_PORT ? "loopback" : NULL;

	if (k == NULL)
		return;
	cJSON_DeleteItemFromArray(dlg_list(d, k), it->index);
	d->dirty = 1;
}

/* Save: 0 when stored; the message says what applied and what waits. */
static int
dlg_save(struct tui *t, struct dialog *d, int restart)
{
	cJSON	*j, *r;
	char	*path, *body, *err;
	int	 live, need;

	body = cJSON_PrintUnformatted(d->config);
	xasprintf(&path, "/api/space/apps/%s/sandbox", d->id);
	if (tui_send(t, "PUT", path, body, &j, &err) != 0) {
		dlg_error(d, err);
		tui_message(t, 1, "not saved: %s", err);
		free(err);
		free(path);
		cJSON_free(body);
		return -1;
	}
	cJSON_free(body);
	free(path);
	dlg_clear_error(d);
	live = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j,
	    "hostsAppliedLive"));
	need = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j,
	    "restartRequired"));
	cJSON_Delete(d->config);
	d->config = cJSON_DetachItemFromObject(j, "config");
	cJSON_Delete(j);
	d->dirty = 0;
	if (restart) {
		xasprintf(&path, "/api/space/apps/%s/restart", d->id);
		if (tui_send(t, "POST", path, NULL, &r, &err) != 0) {
			tui_message(t, 1, "saved, but the restart failed: %s",
			    err);
			free(err);
		} else
			tui_message(t, 0, "saved; restarting %s with the new "
			    "sandbox", d->id);
		cJSON_Delete(r);
		free(path);
	} else if (need)
		tui_message(t, 0, "saved%s; the other changes need a restart "
		    "(R)", live ? "; the site list applies now" : "");
	else
		tui_message(t, 0, "saved%s", live ? "; the site list applies "
		    "to the running app now" : "");
	return 0;
}

static void
dlg_toggle(struct tui *t, struct dialog *d, const struct item *it)
{
	cJSON	*f;

	switch (it->f) {
	case F_ENABLE:
		if (d->forced) {
			tui_message(t, 1, "This app requires the sandbox (its "
			    "manifest declares sandbox.force).");
			break;
		}
		dlg_set(d, "enabled", cJSON_CreateBool(!dlg_true(d->config,
		    "enabled")));
		break;
	case F_READ_OPEN:
	case F_READ_STRICT:
		dlg_set(d, "readMode", cJSON_CreateString(it->f ==
		    F_READ_OPEN ? "open" : "strict"));
		break;
	case F_NET_ALL:
	case F_NET_HOSTS:
	case F_NET_OFF:
		dlg_set(d, "network", cJSON_CreateString(it->f == F_NET_ALL ?
		    "all" : it->f == F_NET_HOSTS ? "hosts" : "off"));
		break;
	case F_DAEMON:
		dlg_set(d, "daemonApi", cJSON_CreateBool(!dlg_true(d->config,
		    "daemonApi")));
		break;
	case F_FOLDER:
		f = cJSON_GetArrayItem(dlg_list(d, "folders"), it->index);
		if (f != NULL) {
			cJSON_ReplaceItemInObjectCaseSensitive(f, "readOnly",
			    cJSON_CreateBool(!dlg_true(f, "readOnly")));
			d->dirty = 1;
		}
		break;
	case F_WANT:
		f = cJSON_GetArrayItem(d->wants, it->index);
		if (cJSON_IsString(f))
			dlg_allow(t, d, f->valuestring);
		break;
	case F_ADD_FOLDER:
	case F_ADD_SITE:
	case F_ADD_PORT:
		dlg_add(t, d, it->f);
		break;
	default:
		break;
	}
}

static void
dlg_focus(struct dialog *d, int i)
{
	if (d->nitems == 0)
		return;
	if (i < 0)
		i = d->nitems - 1;
	if (i >= d->nitems)
		i = 0;
	d->focus = i;
	d->focus_f = d->items[i].f;
	d->focus_i = d->items[i].index;
}

static int
dlg_action(struct tui *t, struct tui_screen *s, int action, int key)
{
	struct dialog	*d = s->data;
	struct item	*it;
	const cJSON	*w;
	int		 i;

	if (d->config == NULL)
		return action == A_BACK ? TUI_POP : TUI_KEEP;
	it = d->focus < d->nitems ? &d->items[d->focus] : NULL;
	switch (action) {
	case A_NEXT:
	case A_DOWN:
		dlg_focus(d, d->focus + 1);
		break;
	case A_PREV:
	case A_UP:
		dlg_focus(d, d->focus - 1);
		break;
	case A_HOME:
		dlg_focus(d, 0);
		break;
	case A_END:
		dlg_focus(d, d->nitems - 1);
		break;
	case A_TOGGLE:
		if (it == NULL)
			break;
		if (it->f == F_CANCEL)
			return TUI_POP;
		if (it->f == F_SAVE || it->f == F_SAVE_RESTART) {
			dlg_save(t, d, it->f == F_SAVE_RESTART);
			break;
		}
		dlg_toggle(t, d, it);
		break;
	case A_ADD:
		if (it != NULL && it->f == F_WANT) {
			dlg_toggle(t, d, it);
			break;
		}
		if (it != NULL && (it->f == F_FOLDER || it->f ==
		    F_ADD_FOLDER || it->f == F_SITE || it->f == F_ADD_SITE ||
		    it->f == F_PORT || it->f == F_ADD_PORT)) {
			dlg_add(t, d, it->f);
			break;
		}
		/* Elsewhere, a allows the first site the app wants. */
		for (i = 0; i < d->nitems; i++) {
			if (d->items[i].f != F_WANT)
				continue;
			w = cJSON_GetArrayItem(d->wants, d->items[i].index);
			if (cJSON_IsString(w))
				dlg_allow(t, d, w->valuestring);
			break;
		}
		break;
	case A_REMOVE:
		if (it != NULL)
			dlg_remove(d, it);
		break;
	case A_RW:
		if (it != NULL && it->f == F_FOLDER)
			dlg_toggle(t, d, it);
		break;
	case A_SAVE:
	case A_SAVE_RESTART:
		dlg_save(t, d, action == A_SAVE_RESTART);
		break;
	case A_BACK:
		return TUI_POP;
	default:
		break;
	}
	return TUI_KEEP;
}

static void
dlg_click(struct tui *t, struct tui_screen *s, int y, int x)
{
	struct dialog	*d = s->data;
	int		 i;

	for (i = 0; i < d->nitems; i++) {
		if (d->items[i].y == y && x >= d->items[i].x &&
		    x < d->items[i].x + d->items[i].w) {
			dlg_focus(d, i);
			dlg_action(t, s, A_TOGGLE, 0);
			return;
		}
	}
}

static void
dlg_event(struct tui *t, struct tui_screen *s, const cJSON *ev)
{
	struct dialog	*d = s->data;
	const char	*app = dlg_str(ev, "appId", "");

	if (strcmp(app, d->id) != 0)
		return;
	/* New wants (or a policy saved elsewhere): refresh what is live. */
	dlg_load(t, d, !d->dirty && strcmp(dlg_str(ev, "event", ""),
	    "policy") == 0);
}

static void
dlg_free(struct tui_screen *s)
{
	struct dialog	*d = s->data;

	free(d->id);
	cJSON_Delete(d->config);
	cJSON_Delete(d->effective);
	cJSON_Delete(d->wants);
	free(d->err);
	free(d);
}

struct tui_screen *
dialog_screen(struct tui *t, const char *id)
{
	struct tui_screen	*s;
	struct dialog		*d;

	d = xcalloc(1, sizeof *d);
	d->id = xstrdup(id);
	s = xcalloc(1, sizeof *s);
	s->title = "sandbox";
	s->ctx = TUI_CTX_DIALOG;
	s->data = d;
	s->draw = dlg_draw;
	s->action = dlg_action;
	s->click = dlg_click;
	s->event = dlg_event;
	s->free = dlg_free;
	s->stream_fd = -1;
	dlg_load(t, d, 1);
	return s;
}
