/*
 * The TUI's main loop: one poll(2) over the keyboard, the engine's event
 * stream and a screen's own stream (a followed log), a stack of screens,
 * and the one key table the help screen is generated from.
 */
#include <sys/ioctl.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "httpmsg.h"
#include "tui.h"
#include "xmalloc.h"

#define K_ESC	27
#define K_TAB	'\t'
#define K_CTRL(c) ((c) & 0x1f)

/*
 * Every key.  Arrows always work; vi keys only in lists (list, picker,
 * views); every F-key has a letter.
 */
const struct tui_key tui_keys[] = {
	{ TUI_CTX_ANY, '?', KEY_F(1), "? F1", "help for this screen", A_HELP },
	{ TUI_CTX_ANY, K_CTRL('l'), 0, "C-l", "redraw", A_REDRAW },
	{ TUI_CTX_ANY, K_ESC, 0, "Esc", "back", A_BACK },
	{ TUI_CTX_ANY, KEY_UP, 0, "Up", "move up", A_UP },
	{ TUI_CTX_ANY, KEY_DOWN, 0, "Down", "move down", A_DOWN },
	{ TUI_CTX_ANY, KEY_PPAGE, 0, "PgUp", "page up", A_PGUP },
	{ TUI_CTX_ANY, KEY_NPAGE, 0, "PgDn", "page down", A_PGDN },
	{ TUI_CTX_ANY, KEY_HOME, 0, "Home", "first", A_HOME },
	{ TUI_CTX_ANY, KEY_END, 0, "End", "last", A_END },

	{ TUI_CTX_LIST, 'k', 0, "k", "move up", A_UP },
	{ TUI_CTX_LIST, 'j', 0, "j", "move down", A_DOWN },
	{ TUI_CTX_LIST, '\n', KEY_ENTER, "Enter", "open the Sandbox dialog",
	    A_OPEN },
	{ TUI_CTX_LIST, '/', 0, "/", "filter the list", A_FILTER },
	{ TUI_CTX_LIST, 's', KEY_F(5), "s F5", "start the app", A_START },
	{ TUI_CTX_LIST, 'x', KEY_F(6), "x F6", "stop the app", A_STOP },
	{ TUI_CTX_LIST, 'r', KEY_F(7), "r F7", "restart the app", A_RESTART },
	{ TUI_CTX_LIST, 'l', KEY_F(8), "l F8", "follow the app's log", A_LOGS },
	{ TUI_CTX_LIST, 'i', KEY_F(9), "i F9", "what the running app got",
	    A_STATUS },
	{ TUI_CTX_LIST, 'A', 0, "A", "approve the command waiting longest",
	    A_APPROVE },
	{ TUI_CTX_LIST, 'D', 0, "D", "deny the command waiting longest",
	    A_DENY },
	{ TUI_CTX_LIST, 'q', KEY_F(10), "q F10", "quit", A_QUIT },

	{ TUI_CTX_DIALOG, K_TAB, KEY_DOWN, "Tab Down", "next field", A_NEXT },
	{ TUI_CTX_DIALOG, KEY_BTAB, KEY_UP, "S-Tab Up", "previous field",
	    A_PREV },
	{ TUI_CTX_DIALOG, ' ', '\n', "Space Enter", "toggle, choose or "
	    "press", A_TOGGLE },
	{ TUI_CTX_DIALOG, 'a', KEY_IC, "a Ins", "allow the wanted site, or "
	    "add to the focused list", A_ADD },
	{ TUI_CTX_DIALOG, 'd', KEY_DC, "d Del", "remove the focused entry",
	    A_REMOVE },
	{ TUI_CTX_DIALOG, 'w', 0, "w", "switch a folder between read-write "
	    "and read-only", A_RW },
	{ TUI_CTX_DIALOG, 'S', KEY_F(2), "S F2", "save", A_SAVE },
	{ TUI_CTX_DIALOG, 'R', KEY_F(3), "R F3", "save and restart the app",
	    A_SAVE_RESTART },
	{ TUI_CTX_DIALOG, 'q', 0, "q", "cancel", A_BACK },

	{ TUI_CTX_PICKER, 'k', 0, "k", "move up", A_UP },
	{ TUI_CTX_PICKER, 'j', 0, "j", "move down", A_DOWN },
	{ TUI_CTX_PICKER, '\n', KEY_RIGHT, "Enter Right", "open the folder",
	    A_OPEN },
	{ TUI_CTX_PICKER, 'l', 0, "l", "open the folder", A_OPEN },
	{ TUI_CTX_PICKER, KEY_BACKSPACE, KEY_LEFT, "BS Left", "parent folder",
	    A_PARENT },
	{ TUI_CTX_PICKER, 'h', 0, "h", "parent folder", A_PARENT },
	{ TUI_CTX_PICKER, ' ', KEY_F(2), "Space F2", "grant the highlighted "
	    "folder", A_CHOOSE },
	{ TUI_CTX_PICKER, 'w', 0, "w", "grant read-write or read-only",
	    A_RW },
	{ TUI_CTX_PICKER, '/', 'p', "/ p", "type a path (Tab completes)",
	    A_TYPE_PATH },
	{ TUI_CTX_PICKER, '.', 0, ".", "show or hide hidden folders",
	    A_HIDDEN },
	{ TUI_CTX_PICKER, 'q', 0, "q", "cancel", A_BACK },

	{ TUI_CTX_VIEW, 'k', 0, "k", "scroll up", A_UP },
	{ TUI_CTX_VIEW, 'j', 0, "j", "scroll down", A_DOWN },
	{ TUI_CTX_VIEW, 'f', 0, "f", "follow the end", A_FOLLOW },
	{ TUI_CTX_VIEW, 'q', 0, "q", "back", A_BACK },
	{ TUI_CTX_ANY, 0, 0, NULL, NULL, A_NONE }
};

static volatile sig_atomic_t	tui_resized;
static volatile sig_atomic_t	tui_signalled;

void
tui_push(struct tui *t, struct tui_screen *s)
{
	s->below = t->top;
	t->top = s;
}

void
tui_pop(struct tui *t)
{
	struct tui_screen	*s = t->top;

	if (s == NULL)
		return;
	t->top = s->below;
	if (s->stream_fd != -1)
		close(s->stream_fd);
	if (s->free != NULL)
		s->free(s);
	free(s);
	if (t->top == NULL)
		t->quit = 1;
}

void
tui_message(struct tui *t, int err, const char *fmt, ...)
{
	va_list	ap;

	free(t->message);
	va_start(ap, fmt);
	if (vasprintf(&t->message, fmt, ap) == -1)
		t->message = NULL;
	va_end(ap);
	t->message_err = err;
}

/* GET a route; NULL (and a message) when the engine refuses. */
cJSON *
tui_get(struct tui *t, const char *path)
{
	cJSON	*j = NULL;
	char	*err = NULL;

	if (tui_send(t, "GET", path, NULL, &j, &err) != 0) {
		tui_message(t, 1, "%s", err);
		free(err);
		return NULL;
	}
	return j;
}

/*
 * One request: 0 with the answer (owned by the caller), or the HTTP
 * status (-1 when unreachable) with the engine's one-line error.
 */
int
tui_send(struct tui *t, const char *method, const char *path,
    const char *body, cJSON **answer, char **err)
{
	struct client_resp	 resp;
	char			 buf[1024];
	int			 status;

	*answer = NULL;
	*err = NULL;
	if (client_request(t->cl, method, path, body, &resp, buf,
	    sizeof buf) == -1) {
		*err = xstrdup(buf);
		return -1;
	}
	status = resp.status;
	if (status < 200 || status > 299) {
		*err = xstrdup(client_error(&resp));
		client_resp_free(&resp);
		return status;
	}
	*answer = resp.json;
	resp.json = NULL;
	client_resp_free(&resp);
	return 0;
}

/* A streaming GET; the socket, with the request sent, or -1. */
int
tui_stream_open(struct tui *t, const char *path)
{
	char	err[512];
	int	fd;

	if ((fd = client_stream_open(t->cl, path, err, sizeof err)) == -1)
		tui_message(t, 1, "%s", err);
	return fd;
}

/* The event stream: each JSON line goes to the top screen. */
struct tui_lines {
	struct httpmsg	 m;
	char		*buf;
	size_t		 len;
	struct tui	*t;
	int		 events;	/* engine events, else a screen's */
};

static void
tui_lines_body(struct httpmsg *m, const char *at, size_t n)
{
	struct tui_lines	*l = m->arg;
	struct tui		*t = l->t;
	struct tui_screen	*s;
	char			*nl;
	cJSON			*ev;

	if (!l->events) {
		if (t->top != NULL && t->top->stream != NULL)
			t->top->stream(t, t->top, at, n);
		return;
	}
	l->buf = xreallocarray(l->buf, l->len + n + 1, 1);
	memcpy(l->buf + l->len, at, n);
	l->len += n;
	l->buf[l->len] = '\0';
	while ((nl = strchr(l->buf, '\n')) != NULL) {
		*nl = '\0';
		if ((ev = cJSON_Parse(l->buf)) != NULL) {
			/* Every screen on the stack stays current. */
			for (s = t->top; s != NULL; s = s->below) {
				if (s->event != NULL)
					s->event(t, s, ev);
			}
			cJSON_Delete(ev);
		}
		l->len -= (size_t)(nl + 1 - l->buf);
		memmove(l->buf, nl + 1, l->len + 1);
	}
}

static void
tui_lines_init(struct tui_lines *l, struct tui *t, int events)
{
	memset(l, 0, sizeof *l);
	l->t = t;
	l->events = events;
	httpmsg_init(&l->m, HTTP_RESPONSE, 8192, 65536, 0);
	l->m.body_cb = tui_lines_body;
	l->m.arg = l;
}

static void
tui_lines_free(struct tui_lines *l)
{
	httpmsg_free(&l->m);
	free(l->buf);
}

/* Read what a stream has; -1 when it ended. */
static int
tui_lines_read(struct tui_lines *l, int fd)
{
	char	buf[8192];
	ssize_t	n;

	n = read(fd, buf, sizeof buf);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0 || httpmsg_feed(&l->m, buf, (size_t)n) == -1)
		return -1;
	return 0;
}

static const struct tui_key *
tui_lookup(enum tui_ctx ctx, int key)
{
	const struct tui_key	*k;

	/* The screen's own bindings first, then the common ones. */
	for (k = tui_keys; k->name != NULL; k++) {
		if (k->ctx == ctx && (k->key == key || k->alias == key))
			return k;
	}
	for (k = tui_keys; k->name != NULL; k++) {
		if (k->ctx == TUI_CTX_ANY && (k->key == key ||
		    k->alias == key))
			return k;
	}
	return NULL;
}

static void
tui_on_winch(int sig)
{
	tui_resized = 1;
}

static void
tui_on_fatal(int sig)
{
	tui_signalled = sig;
}

static void
tui_draw(struct tui *t)
{
	erase();
	if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_LINES) {
		draw_wrap(0, 0, COLS, LINES, A_BOLD, "spacebox needs a "
		    "terminal of at least 80x24; make this one larger "
		    "(q quits)");
		refresh();
		return;
	}
	t->top->draw(t, t->top);
	if (t->message != NULL)
		draw_text(LINES - 2, 1, COLS - 2, t->message_err ?
		    draw_attr(t, PAIR_ERROR, A_BOLD) : draw_attr(t, PAIR_OK,
		    A_BOLD), t->message);
	refresh();
}

static void
tui_key(struct tui *t, int key)
{
	const struct tui_key	*k;
	MEVENT			 me;
	int			 action = A_NONE, next;

	if (key == KEY_RESIZE)
		return;
	if (key == KEY_MOUSE) {
		/*
		 * A quick click arrives as CLICKED, a slow one as PRESSED
		 * then RELEASED: act once, on CLICKED or PRESSED.
		 */
		if (getmouse(&me) == OK && (me.bstate & (BUTTON1_CLICKED |
		    BUTTON1_PRESSED)) &&
		    t->top->click != NULL)
			t->top->click(t, t->top, me.y, me.x);
		return;
	}
	if (COLS < TUI_MIN_COLS || LINES < TUI_MIN_LINES) {
		if (key == 'q')
			t->quit = 1;
		return;
	}
	/*
	 * An escape sequence curses did not know (End as ESC [ 4 ~ in some
	 * terminals) must not read as Esc: swallow it whole.
	 */
	if (key == K_ESC && (next = getch()) != ERR) {
		if (next != '[' && next != 'O') {
			ungetch(next);		/* Esc, then another key */
		} else {
			while ((next = getch()) != ERR &&
			    !(next >= 0x40 && next <= 0x7e))
				;
			return;
		}
	}
	if ((k = tui_lookup(t->top->ctx, key)) != NULL)
		action = k->action;
	if (action == A_HELP) {
		draw_help(t, t->top->ctx);
		return;
	}
	if (action == A_REDRAW) {
		clearok(curscr, TRUE);
		return;
	}
	if (action == A_QUIT) {
		t->quit = 1;
		return;
	}
	free(t->message);
	t->message = NULL;
	if (t->top->action(t, t->top, action, key) == TUI_POP)
		tui_pop(t);
}

int
tui_main(struct client *cl, int color, int ascii, int mouse)
{
	struct tui		 t;
	struct tui_lines	 ev, st;
	struct pollfd		 pfd[3];
	struct sigaction	 sa;
	char			 err[512];
	int			 key, n, st_fd = -1;

	memset(&t, 0, sizeof t);
	t.cl = cl;
	t.color = color;
	t.ascii = ascii;
	t.mouse = mouse;
	/* Reach the engine before the screen changes, so errors are seen. */
	if ((t.events_fd = client_stream_open(cl, "/api/events", err,
	    sizeof err)) == -1) {
		fprintf(stderr, "spacebox: %s\n", err);
		return 1;
	}
	if (draw_init(&t) == -1)
		return 1;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tui_on_winch;
	sigaction(SIGWINCH, &sa, NULL);
	sa.sa_handler = tui_on_fatal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);

	tui_push(&t, list_screen(&t));
	tui_lines_init(&ev, &t, 1);
	tui_lines_init(&st, &t, 0);
	while (!t.quit && !tui_signalled) {
		if (tui_resized) {
			struct winsize ws;

			tui_resized = 0;
			if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0)
				resizeterm(ws.ws_row, ws.ws_col);
		}
		tui_draw(&t);
		/* A screen with a stream of its own (a followed log). */
		if (t.top->stream_fd != st_fd) {
			tui_lines_free(&st);
			tui_lines_init(&st, &t, 0);
			st_fd = t.top->stream_fd;
		}
		pfd[0].fd = STDIN_FILENO;
		pfd[0].events = POLLIN;
		pfd[1].fd = t.events_fd;
		pfd[1].events = POLLIN;
		pfd[2].fd = st_fd;
		pfd[2].events = POLLIN;
		n = poll(pfd, 3, -1);
		if (n == -1)
			continue;
		if (pfd[1].revents != 0 && tui_lines_read(&ev,
		    t.events_fd) == -1) {
			close(t.events_fd);
			t.events_fd = -1;
			tui_message(&t, 1, "lost the engine's event stream; "
			    "live updates stopped");
		}
		if (st_fd != -1 && pfd[2].revents != 0 &&
		    tui_lines_read(&st, st_fd) == -1) {
			close(st_fd);
			t.top->stream_fd = st_fd = -1;
		}
		if (pfd[0].revents != 0) {
			while ((key = getch()) != ERR && !t.quit) {
				tui_key(&t, key);
				if (t.top == NULL)
					break;
			}
		}
	}
	while (t.top != NULL)
		tui_pop(&t);
	draw_end();
	tui_lines_free(&ev);
	tui_lines_free(&st);
	if (t.events_fd != -1)
		close(t.events_fd);
	free(t.message);
	return tui_signalled ? 128 + tui_signalled : 0;
}
