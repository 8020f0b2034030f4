// Weather: a Space App that fetches one configured site.  Standard
// library only; in "only these sites" mode it goes through the proxy
// named by HTTPS_PROXY with a CONNECT tunnel, as any well-behaved client.
'use strict';
const http = require('http');
const https = require('https');
const tls = require('tls');

const target = new URL(process.env.WEATHER_URL || 'https://api.example.com/');

function viaProxy(cb, dest) {
  dest = dest || target;
  const proxy = process.env.HTTPS_PROXY || process.env.https_proxy;
  if (!proxy) return cb(null, undefined);
  const p = new URL(proxy);
  const port = dest.port || 443;
  const req = http.request({ host: p.hostname, port: p.port, method: 'CONNECT',
                             path: `${dest.hostname}:${port}` });
  req.on('connect', (res, socket) => {
    if (res.statusCode !== 200) {
      socket.destroy();
      return cb(new Error(`proxy refused ${dest.hostname}: ${res.statusCode}`));
    }
    cb(null, tls.connect({ socket, servername: dest.hostname }));
  });
  req.on('error', cb);
  req.end();
}

function fetchTarget(cb) {
  viaProxy((err, socket) => {
    if (err) return cb(err);
    const opts = { method: 'GET', headers: { host: target.host } };
    if (socket) opts.createConnection = () => socket;
    const req = https.request(target, opts, (res) => {
      let body = '';
      res.on('data', (d) => { if (body.length < 65536) body += d; });
      res.on('end', () => cb(null, res.statusCode, body));
    });
    req.setTimeout(10000, () => req.destroy(new Error('timed out')));
    req.on('error', cb);
    req.end();
  });
}

// Like many apps, it phones home at start.  In "only these sites" mode
// the proxy refuses and records it: the dialog shows "This app wants".
if (process.env.WEATHER_TELEMETRY_URL !== '') {
  const telemetry = new URL(process.env.WEATHER_TELEMETRY_URL ||
                            'https://telemetry.example.net/ping');
  viaProxy((err, socket) => {
    if (socket) socket.destroy();
    console.log(err ? `telemetry: ${err.message}` :
                socket ? 'telemetry: sent' : 'telemetry: no proxy, skipped');
  }, telemetry);
}

http.createServer((req, res) => {
  if (req.url === '/health') {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end('{"ok":true}\n');
  }
  fetchTarget((err, status, body) => {
    res.writeHead(err ? 502 : 200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(err ? { error: String(err.message) }
                               : { status, body: body.slice(0, 2000) }) + '\n');
  });
}).listen(Number(process.env.PORT || 8001), '127.0.0.1');
