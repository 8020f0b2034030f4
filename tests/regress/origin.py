#!/usr/bin/env python3
"""Test origin and raw proxy client for the proxy regress tests.

Standard library only.  Three modes:

  origin.py serve --bind ADDR --log FILE [--ready FILE] [--parent PID]
      The "internet" side, run inside the test's network namespace.  Ports
      80 and 8080 answer one HTTP/1.1 request per connection with 200 and a
      body naming the port, the Host header and the request target, followed
      by every request header received (so a test can see what a proxy
      stripped).  Ports 443, 22 and 8443 are plain TCP echo.  One log line
      per accepted connection: "<port> <peer ip> <repr of the first bytes>"
      (the first bytes that arrive within 1 s, b'' if none); bytes that
      follow a complete HTTP request on the same connection are logged as
      "<port> <peer ip> EXTRA <repr>".  Exits when --parent is gone.

  origin.py send --port P --data ESC [options]
      Send exact bytes to 127.0.0.1:P (ESC: \\r \\n \\0 \\t \\\\ escapes),
      read the first response head, print its status code, "close" (the
      connection closed with no bytes) or "timeout".  Options:
        --timeout S   bound on every wait (default 5)
        --out FILE    write all received bytes (head and body) there
        --after ESC   after a 200 head, send these bytes
        --echo ESC    after a 200 head, expect exactly these bytes back;
                      prints "200 echo=ok" or "200 echo=bad:<repr>"
        --trickle S   keep sending one byte every S seconds until answered
        --time        also print the seconds until the answer

  origin.py tunnel --port P --target HOST:PORT --dir DIR [--keepalive S]
                   [--parent PID]
      A CONNECT tunnel kept open in the background.  DIR/ev gets
      "status <code>" then, when the proxy closes it, "eof <secs since
      established>"; DIR/rx gets every byte received after the head; DIR/in
      is a FIFO taking "send <text>" and "close" lines.  --keepalive sends
      one "." every S seconds (the echo origin sends it back).
"""

import argparse
import os
import select
import socket
import sys
import threading
import time

HTTP_PORTS = (80, 8080)
ECHO_PORTS = (443, 22, 8443)
REPR_MAX = 300


def unescape(s):
    out = bytearray()
    raw = s.encode("utf-8", "surrogateescape")
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == 0x5C and i + 1 < len(raw):
            n = chr(raw[i + 1])
            m = {"r": b"\r", "n": b"\n", "0": b"\0", "t": b"\t", "\\": b"\\"}
            if n in m:
                out += m[n]
                i += 2
                continue
        out.append(c)
        i += 1
    return bytes(out)


def watch_parent(pid):
    if not pid:
        return

    def run():
        while True:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:
                pass
            time.sleep(0.5)

    threading.Thread(target=run, daemon=True).start()


# ---------------------------------------------------------------- serve

class Log:
    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()

    def line(self, text):
        with self.lock:
            with open(self.path, "a", encoding="ascii",
                      errors="backslashreplace") as f:
                f.write(text + "\n")
                f.flush()


def first_bytes(conn):
    conn.settimeout(1.0)
    try:
        return conn.recv(65536)
    except socket.timeout:
        return b""
    except OSError:
        return b""


def serve_echo(conn, port, peer, log):
    try:
        first = first_bytes(conn)
        log.line("%d %s %s" % (port, peer, repr(first[:REPR_MAX])))
        conn.settimeout(600)
        data = first
        while data:
            conn.sendall(data)
            data = conn.recv(65536)
    except OSError:
        pass
    finally:
        conn.close()


def serve_http(conn, port, peer, log):
    try:
        first = first_bytes(conn)
        log.line("%d %s %s" % (port, peer, repr(first[:REPR_MAX])))
        buf = first
        conn.settimeout(10)
        while b"\r\n\r\n" not in buf and len(buf) < 1 << 20:
            d = conn.recv(65536)
            if not d:
                return
            buf += d
        if b"\r\n\r\n" not in buf:
            return
        head, rest = buf.split(b"\r\n\r\n", 1)
        lines = head.split(b"\r\n")
        parts = lines[0].split(b" ")
        method = parts[0] if parts else b""
        target = parts[1] if len(parts) > 1 else b""
        host = b""
        clen = 0
        for h in lines[1:]:
            name, _, value = h.partition(b":")
            if name.strip().lower() == b"host" and not host:
                host = value.strip()
            if name.strip().lower() == b"content-length":
                try:
                    clen = int(value.strip())
                except ValueError:
                    clen = 0
        while len(rest) < clen:
            d = conn.recv(65536)
            if not d:
                break
            rest += d
        extra = rest[clen:]
        body = b"origin port %d host %s path %s\nmethod %s\n--- headers\n" % (
            port, host, target, method)
        body += b"".join(h + b"\n" for h in lines[1:])
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
                     b"Content-Length: %d\r\nConnection: close\r\n\r\n"
                     % len(body) + body)
        conn.shutdown(socket.SHUT_WR)
        # Anything after the one request is logged: a proxy must not pass a
        # second (unchecked) request down the same connection.
        conn.settimeout(0.5)
        try:
            while True:
                d = conn.recv(65536)
                if not d:
                    break
                extra += d
        except OSError:
            pass
        if extra:
            log.line("%d %s EXTRA %s" % (port, peer, repr(extra[:REPR_MAX])))
    except OSError:
        pass
    finally:
        conn.close()


def accept_loop(ls, port, handler, log):
    while True:
        try:
            conn, addr = ls.accept()
        except OSError:
            continue
        threading.Thread(target=handler, args=(conn, port, addr[0], log),
                         daemon=True).start()


def cmd_serve(a):
    log = Log(a.log)
    open(a.log, "a").close()
    socks = []
    for port in HTTP_PORTS + ECHO_PORTS:
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((a.bind, port))
        s.listen(128)
        handler = serve_http if port in HTTP_PORTS else serve_echo
        threading.Thread(target=accept_loop, args=(s, port, handler, log),
                         daemon=True).start()
        socks.append(s)
    if a.ready:
        with open(a.ready, "w") as f:
            f.write("%d\n" % os.getpid())
    watch_parent(a.parent)
    while True:
        time.sleep(3600)


# ---------------------------------------------------------------- send

def read_head(s, buf, deadline):
    """Read until the end of a response head; returns (buf, eof)."""
    while b"\r\n\r\n" not in buf:
        left = deadline - time.monotonic()
        if left <= 0:
            return buf, False
        s.settimeout(left)
        try:
            d = s.recv(65536)
        except socket.timeout:
            return buf, False
        except ConnectionResetError:
            return buf, True
        if not d:
            return buf, True
        buf += d
    return buf, False


def cmd_send(a):
    data = unescape(a.data)
    start = time.monotonic()
    deadline = start + a.timeout
    s = socket.create_connection(("127.0.0.1", a.port), timeout=a.timeout)
    s.sendall(data)
    answered = threading.Event()
    if a.trickle:
        def trickle():
            while not answered.wait(a.trickle):
                try:
                    s.sendall(b"a")
                except OSError:
                    return
        threading.Thread(target=trickle, daemon=True).start()
    buf, eof = read_head(s, b"", deadline)
    answered.set()
    elapsed = time.monotonic() - start
    if not buf:
        result = "close" if eof else "timeout"
    else:
        first = buf.split(b"\r\n", 1)[0].split(b" ")
        if (len(first) >= 2 and first[0].startswith(b"HTTP/")
                and first[1].isdigit()):
            result = first[1].decode()
        else:
            result = "junk:" + repr(buf[:60])
    if b"\r\n\r\n" in buf:
        head, rest = buf.split(b"\r\n\r\n", 1)
        head += b"\r\n\r\n"
    else:
        head, rest = buf, b""
    if result == "200" and (a.after is not None or a.echo is not None):
        if a.after is not None:
            s.sendall(unescape(a.after))
        want = unescape(a.echo) if a.echo is not None else b""
        edl = time.monotonic() + a.timeout
        while len(rest) < len(want) and time.monotonic() < edl:
            s.settimeout(max(0.01, edl - time.monotonic()))
            try:
                d = s.recv(65536)
            except (socket.timeout, OSError):
                break
            if not d:
                break
            rest += d
        if a.echo is not None:
            result += " echo=ok" if rest == want else " echo=bad:" + repr(rest)
    elif a.out and b"\r\n\r\n" in buf and not eof:
        # Read the body: by Content-Length, else until EOF (bounded).
        clen = None
        for h in head.split(b"\r\n")[1:]:
            n, _, v = h.partition(b":")
            if n.strip().lower() == b"content-length":
                try:
                    clen = int(v.strip())
                except ValueError:
                    pass
        edl = time.monotonic() + a.timeout
        while (clen is None or len(rest) < clen) and time.monotonic() < edl:
            s.settimeout(max(0.01, edl - time.monotonic()))
            try:
                d = s.recv(65536)
            except (socket.timeout, OSError):
                break
            if not d:
                break
            rest += d
    if a.out:
        with open(a.out, "wb") as f:
            f.write(head + rest)
    if a.time:
        result += " %.2f" % elapsed
    print(result)
    s.close()


# ---------------------------------------------------------------- tunnel

def cmd_tunnel(a):
    watch_parent(a.parent)
    ev = open(os.path.join(a.dir, "ev"), "a")
    rx = open(os.path.join(a.dir, "rx"), "ab")
    fifo_path = os.path.join(a.dir, "in")
    if not os.path.exists(fifo_path):
        os.mkfifo(fifo_path)
    fifo = os.open(fifo_path, os.O_RDWR | os.O_NONBLOCK)

    def event(text):
        ev.write(text + "\n")
        ev.flush()

    try:
        s = socket.create_connection(("127.0.0.1", a.port), timeout=5)
        s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n"
                  % (a.target.encode(), a.target.encode()))
        buf, eof = read_head(s, b"", time.monotonic() + 5)
    except OSError as e:
        event("status error:%s" % e.__class__.__name__)
        return
    if not buf:
        event("status " + ("close" if eof else "timeout"))
        return
    first = buf.split(b"\r\n", 1)[0].split(b" ")
    code = first[1].decode() if len(first) >= 2 else "junk"
    event("status " + code)
    if code != "200":
        return
    rest = buf.split(b"\r\n\r\n", 1)[1] if b"\r\n\r\n" in buf else b""
    rx.write(rest)
    rx.flush()
    start = time.monotonic()
    s.setblocking(False)
    pending = b""
    next_ka = start + a.keepalive if a.keepalive else None
    while True:
        timeout = 1.0
        if next_ka is not None:
            timeout = max(0.0, min(timeout, next_ka - time.monotonic()))
        r, _, _ = select.select([s, fifo], [], [], timeout)
        try:
            if s in r:
                d = s.recv(65536)
                if not d:
                    event("eof %.2f" % (time.monotonic() - start))
                    return
                rx.write(d)
                rx.flush()
            if fifo in r:
                pending += os.read(fifo, 65536)
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    if line.startswith(b"send "):
                        s.setblocking(True)
                        s.sendall(line[5:])
                        s.setblocking(False)
                    elif line == b"close":
                        s.close()
                        event("closed")
                        return
            if next_ka is not None and time.monotonic() >= next_ka:
                s.setblocking(True)
                s.sendall(b".")
                s.setblocking(False)
                next_ka += a.keepalive
        except (ConnectionResetError, BrokenPipeError):
            event("eof %.2f reset" % (time.monotonic() - start))
            return


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="mode", required=True)
    sp = sub.add_parser("serve")
    sp.add_argument("--bind", required=True)
    sp.add_argument("--log", required=True)
    sp.add_argument("--ready")
    sp.add_argument("--parent", type=int, default=0)
    sp = sub.add_parser("send")
    sp.add_argument("--port", type=int, required=True)
    sp.add_argument("--data", required=True)
    sp.add_argument("--timeout", type=float, default=5.0)
    sp.add_argument("--out")
    sp.add_argument("--after")
    sp.add_argument("--echo")
    sp.add_argument("--trickle", type=float, default=0.0)
    sp.add_argument("--time", action="store_true")
    sp = sub.add_parser("tunnel")
    sp.add_argument("--port", type=int, required=True)
    sp.add_argument("--target", required=True)
    sp.add_argument("--dir", required=True)
    sp.add_argument("--keepalive", type=float, default=0.0)
    sp.add_argument("--parent", type=int, default=0)
    a = p.parse_args()
    {"serve": cmd_serve, "send": cmd_send, "tunnel": cmd_tunnel}[a.mode](a)


if __name__ == "__main__":
    sys.exit(main())
