"""Notes: a Space App that keeps notes in SQLite in its data directory.

Standard library only.  GET / lists notes, POST / with a body adds one,
GET /health answers ok.  The data directory is the one the engine grants:
$SENCLAW_HOME (or ~/.senclaw) /space-apps-data/<id>.
"""
import http.server
import json
import os
import sqlite3

APP_ID = os.environ.get("SENCLAW_SPACE_APP_ID", "notes")
ROOT = os.environ.get("SENCLAW_HOME") or os.path.join(os.environ["HOME"], ".senclaw")
DATA = os.path.join(ROOT, "space-apps-data", APP_ID)
os.makedirs(DATA, exist_ok=True)
DB = sqlite3.connect(os.path.join(DATA, "notes.db"), check_same_thread=False)
DB.execute("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT)")
DB.commit()


class Handler(http.server.BaseHTTPRequestHandler):
    def reply(self, code, obj):
        data = (json.dumps(obj) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/health":
            self.reply(200, {"ok": True})
        elif self.path == "/":
            rows = DB.execute("SELECT id, body FROM notes ORDER BY id").fetchall()
            self.reply(200, {"notes": [{"id": i, "body": b} for i, b in rows]})
        else:
            self.reply(404, {"error": "no such page"})

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(min(n, 65536)).decode("utf-8", "replace")
        DB.execute("INSERT INTO notes (body) VALUES (?)", (body,))
        DB.commit()
        self.reply(201, {"ok": True})

    def log_message(self, fmt, *args):
        print("notes:", fmt % args, flush=True)


http.server.ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "8000"))),
                                Handler).serve_forever()
