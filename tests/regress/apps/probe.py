#!/usr/bin/env python3
"""A Space App for the regress tests: serves /health and /probe on
127.0.0.1:$PORT and performs, on request, one action from inside the
sandbox, answering JSON {"ok": bool, "error": "...", ...}.

  /probe?op=read&path=P            read a file (first 4 KiB in "data")
  /probe?op=write&path=P[&data=D]  create or overwrite a file
  /probe?op=list&path=P            list a directory ("entries")
  /probe?op=connect&host=H&port=N  TCP connect, 3 s timeout
  /probe?op=unix&path=P[&method=M&url=U&body=B]
                                   connect to a unix socket and send an
                                   HTTP request (default GET /api/space/apps);
                                   "reply": status line, "body"
  /probe?op=fetch&url=U            urllib GET (honours HTTP(S)_PROXY)
  /probe?op=api&path=/api/..&method=M[&token=own|none|T][&body=B][&port=N]
                                   call the app-facing API (SENCLAW_BASE_URL
                                   or 127.0.0.1:N); "status", "body"; ok
                                   means a 2xx answer
  /probe?op=env                    the environment ("env")
  /probe?op=id                     uid, gid, cwd
  /probe?op=sqlite&path=P          create/open a database, insert, count
  /probe?op=sleep&secs=S           hold the connection S seconds

Options (for supervision tests):
  --tag WORD          ignored; a marker to find the processes with pgrep
  --term exit|ignore  on SIGTERM write term-marker to the data dir and
                      exit 0 / ignore SIGTERM
  --term-delay S      with --term exit: clean up for S seconds first
  --spew N            print N bytes on stdout before serving
  --crash-unless F    exit 3 at once unless data-dir/F exists
  --crash-once        the first run (no data-dir/crashed-once yet) exits
                      3 shortly after its first health check
"""
import argparse
import http.client
import json
import os
import signal
import socket
import sqlite3
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

APP_ID = os.environ.get("SENCLAW_SPACE_APP_ID", "unknown")
DATA = os.path.join(os.environ.get("SENCLAW_HOME", "/nonexistent"),
                    "space-apps-data", APP_ID)
OPTS = None
CRASH_PENDING = False


def op_read(q):
    with open(q["path"], "rb") as f:
        return {"data": f.read(4096).decode("utf-8", "replace")}


def op_write(q):
    with open(q["path"], "w") as f:
        f.write(q.get("data", "probe-was-here\n"))
    return {}


def op_list(q):
    return {"entries": sorted(os.listdir(q["path"]))}


def op_connect(q):
    s = socket.create_connection((q["host"], int(q["port"])), timeout=3)
    s.close()
    return {}


def op_unix(q):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    s.connect(q["path"])
    body = q.get("body", "").encode()
    req = "%s %s HTTP/1.0\r\nHost: sb\r\nContent-Length: %d\r\n" \
        "Content-Type: application/json\r\n\r\n" % (
            q.get("method", "GET"), q.get("url", "/api/space/apps"),
            len(body))
    s.sendall(req.encode() + body)
    reply = b""
    while len(reply) < 8192:
        b = s.recv(8192)
        if not b:
            break
        reply += b
    s.close()
    text = reply.decode("latin-1", "replace")
    return {"reply": text.split("\r\n")[0],
            "body": text.split("\r\n\r\n", 1)[-1][:2000]}


def op_fetch(q):
    try:
        with urllib.request.urlopen(q["url"], timeout=5) as r:
            return {"status": r.status,
                    "body": r.read(2000).decode("utf-8", "replace")}
    except urllib.error.HTTPError as e:
        return {"ok": False, "status": e.code,
                "error": "HTTP %d" % e.code,
                "body": e.read(2000).decode("utf-8", "replace")}


def op_api(q):
    if "port" in q:
        host, port = "127.0.0.1", int(q["port"])
    else:
        u = urllib.parse.urlsplit(os.environ["SENCLAW_BASE_URL"])
        host, port = u.hostname, u.port
    headers = {}
    token = q.get("token", "own")
    if token == "own":
        token = os.environ.get("SENCLAW_TOKEN_ACCESS_APP", "")
    if token != "none":
        headers["Authorization"] = "Bearer " + token
    body = q.get("body")
    if body is not None:
        headers["Content-Type"] = "application/json"
    c = http.client.HTTPConnection(host, port, timeout=3)
    c.request(q.get("method", "GET"), q["path"], body=body, headers=headers)
    r = c.getresponse()
    text = r.read(4000).decode("utf-8", "replace")
    c.close()
    return {"ok": 200 <= r.status < 300, "status": r.status, "body": text}


def op_env(q):
    return {"env": dict(os.environ)}


def op_id(q):
    return {"uid": os.getuid(), "gid": os.getgid(), "cwd": os.getcwd()}


def op_sqlite(q):
    db = sqlite3.connect(q["path"], timeout=3)
    if q.get("wal"):
        db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS t (x TEXT)")
    db.execute("INSERT INTO t VALUES (?)", (q.get("data", "row"),))
    db.commit()
    n = db.execute("SELECT count(*) FROM t").fetchone()[0]
    db.close()
    return {"count": n}


def op_sleep(q):
    time.sleep(float(q.get("secs", "1")))
    return {}


OPS = {"read": op_read, "write": op_write, "list": op_list,
       "connect": op_connect, "unix": op_unix, "fetch": op_fetch,
       "api": op_api, "env": op_env, "id": op_id, "sqlite": op_sqlite,
       "sleep": op_sleep}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, fmt, *args):
        pass

    def answer(self, code, obj):
        body = (json.dumps(obj) + "\n").encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        global CRASH_PENDING
        u = urllib.parse.urlsplit(self.path)
        if u.path == "/health":
            self.answer(200, {"ok": True, "appId": APP_ID})
            if CRASH_PENDING:
                CRASH_PENDING = False
                threading.Timer(0.5, lambda: os._exit(3)).start()
            return
        if u.path != "/probe":
            self.answer(404, {"ok": False, "error": "no such path"})
            return
        q = dict(urllib.parse.parse_qsl(u.query, keep_blank_values=True))
        op = OPS.get(q.get("op", ""))
        if op is None:
            self.answer(400, {"ok": False, "error": "unknown op"})
            return
        try:
            res = op(q)
            res.setdefault("ok", True)
        except Exception as e:  # the refusal is the answer
            res = {"ok": False, "error": "%s: %s" % (type(e).__name__, e)}
        self.answer(200, res)


def on_term(signum, frame):
    time.sleep(OPTS.term_delay)
    try:
        with open(os.path.join(DATA, "term-marker"), "w") as f:
            f.write("term %d\n" % os.getpid())
    finally:
        os._exit(0)


def main():
    global OPTS, CRASH_PENDING
    ap = argparse.ArgumentParser()
    ap.add_argument("--tag")
    ap.add_argument("--term", choices=["exit", "ignore"])
    ap.add_argument("--term-delay", type=float, default=0)
    ap.add_argument("--spew", type=int, default=0)
    ap.add_argument("--crash-unless")
    ap.add_argument("--crash-once", action="store_true")
    OPTS = ap.parse_args()
    if OPTS.crash_unless and not os.path.exists(
            os.path.join(DATA, OPTS.crash_unless)):
        print("probe: %s missing, crashing" % OPTS.crash_unless, flush=True)
        sys.exit(3)
    if OPTS.crash_once:
        marker = os.path.join(DATA, "crashed-once")
        if not os.path.exists(marker):
            open(marker, "w").close()
            CRASH_PENDING = True
    if OPTS.term == "exit":
        signal.signal(signal.SIGTERM, on_term)
    elif OPTS.term == "ignore":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if OPTS.spew > 0:
        line = ("x" * 1023 + "\n").encode()
        left = OPTS.spew
        while left > 0:
            chunk = line[:left] if left < len(line) else line
            sys.stdout.buffer.write(chunk)
            left -= len(chunk)
        sys.stdout.flush()
    srv = ThreadingHTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler)
    srv.daemon_threads = True
    print("probe %s listening on 127.0.0.1:%s" % (APP_ID, os.environ["PORT"]),
          flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
