/*
 * The spacebox TUI: an ncurses mirror of the Sandbox dialog, for a
 * keyboard over SSH.  Screens are a stack (list -> dialog -> picker);
 * every key is in one table (keys.c), so the help screen and the man page
 * come from the same place.  All data comes from the engine's API; live
 * changes arrive on the event stream, never by polling.
 */
#ifndef SPACEBOX_TUI_H
#define SPACEBOX_TUI_H

#include <curses.h>

#include <cjson/cJSON.h>

#include "client.h"

#define TUI_MIN_COLS	80
#define TUI_MIN_LINES	24

enum tui_ctx {
	TUI_CTX_ANY,		/* every screen */
	TUI_CTX_LIST,
	TUI_CTX_DIALOG,
	TUI_CTX_PICKER,
	TUI_CTX_VIEW		/* logs and status */
};

struct tui;
struct tui_screen;

/* One key binding; the help screen is generated from the table. */
struct tui_key {
	enum tui_ctx	 ctx;
	int		 key;
	int		 alias;		/* a letter for every F-key, or 0 */
	const char	*name;		/* how help shows it */
	const char	*help;
	int		 action;
};

enum tui_action {
	A_NONE,
	A_UP, A_DOWN, A_PGUP, A_PGDN, A_HOME, A_END,
	A_NEXT, A_PREV,
	A_OPEN, A_BACK, A_QUIT, A_HELP, A_REDRAW,
	A_FILTER, A_START, A_STOP, A_RESTART, A_LOGS, A_STATUS,
	A_TOGGLE, A_ADD, A_REMOVE, A_RW, A_SAVE, A_SAVE_RESTART,
	A_ALLOW, A_TYPE_PATH, A_PARENT, A_HIDDEN, A_CHOOSE, A_FOLLOW,
	A_APPROVE, A_DENY
};

extern const struct tui_key tui_keys[];

/*
 * A screen: draw, handle an action (or a raw key when no binding
 * matched), handle a mouse click, learn of an engine event, free.
 */
struct tui_screen {
	const char	*title;
	enum tui_ctx	 ctx;
	void		*data;
	void		(*draw)(struct tui *, struct tui_screen *);
	int		(*action)(struct tui *, struct tui_screen *, int action,
			    int key);
	void		(*click)(struct tui *, struct tui_screen *, int y,
			    int x);
	void		(*event)(struct tui *, struct tui_screen *,
			    const cJSON *ev);
	void		(*free)(struct tui_screen *);
	int		 stream_fd;	/* logs -f, or -1 */
	void		(*stream)(struct tui *, struct tui_screen *,
			    const char *, size_t);
	struct tui_screen *below;
};

/* Returned by action handlers. */
#define TUI_KEEP	0
#define TUI_POP		1

struct tui {
	struct client		*cl;
	struct tui_screen	*top;
	int			 color;
	int			 ascii;
	int			 mouse;
	int			 quit;
	char			*message;	/* one line at the bottom */
	int			 message_err;
	int			 events_fd;
};

/* tui.c */
void		 tui_push(struct tui *, struct tui_screen *);
void		 tui_pop(struct tui *);
void		 tui_message(struct tui *, int err, const char *, ...)
		    __attribute__((format(printf, 3, 4)));
cJSON		*tui_get(struct tui *, const char *path);
int		 tui_send(struct tui *, const char *method, const char *path,
		    const char *body, cJSON **answer, char **err);
int		 tui_stream_open(struct tui *, const char *path);

/* draw.c: the terminal and what every screen draws with */
int		 draw_init(struct tui *);
void		 draw_end(void);
void		 draw_frame(struct tui *, const char *title,
		    const char *keys);
void		 draw_text(int y, int x, int width, int attr, const char *);
int		 draw_wrap(int y, int x, int width, int maxlines, int attr,
		    const char *);
const char	*draw_glyph(struct tui *, const char *utf8,
		    const char *ascii);
int		 draw_attr(struct tui *, int pair, int fallback);
void		 draw_help(struct tui *, enum tui_ctx);

#define PAIR_TITLE	1
#define PAIR_SELECT	2
#define PAIR_ERROR	3
#define PAIR_OK		4
#define PAIR_DIM	5
#define PAIR_WANT	6

/* prompt.c: one line of input with libedit (history, tab completion) */
char		*prompt_line(struct tui *, const char *prompt,
		    const char *initial, int complete_dirs);

/* Screens. */
struct tui_screen *list_screen(struct tui *);
struct tui_screen *dialog_screen(struct tui *, const char *id);
struct tui_screen *picker_screen(struct tui *, const char *start,
		    void (*chosen)(struct tui *, void *, const char *, int),
		    void *arg);
struct tui_screen *logs_screen(struct tui *, const char *id);
struct tui_screen *status_screen(struct tui *, const char *id);

int		 tui_main(struct client *, int color, int ascii, int mouse);

#endif
