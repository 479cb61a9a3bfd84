// An HTTP server on 127.0.0.1 for the fake APIs that other agents' CLIs
// are pointed at (tests/smoke/doctor-clis.test.mjs). It is also the CLIs'
// HTTPS_PROXY and HTTP_PROXY, so a request meant for anywhere else (an
// update check, telemetry, a plugin list) comes here instead of leaving
// the machine: it is refused and its host kept in `outside`, which the
// test asserts is empty. `handle(req, body, res)` answers the API's own
// requests.
import { createServer } from "node:http";

export async function loopback(handle) {
  const outside = [];
  const server = createServer((req, res) => {
    // A proxied plain-HTTP request names its absolute URL.
    if (/^[a-z]+:\/\//i.test(req.url)) {
      outside.push(req.url);
      res.writeHead(403).end();
      return;
    }
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => handle(req, Buffer.concat(chunks).toString("utf8"), res));
  });
  // A proxied HTTPS request: CONNECT host:443.
  server.on("connect", (req, socket) => {
    outside.push(req.url);
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n");
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${server.address().port}`;
  return {
    url,
    outside,
    close: () => new Promise((ok) => {
      server.closeAllConnections?.();
      server.close(ok);
    }),
  };
}

/** A JSON answer. */
export function json(res, status, value) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

/** A server-sent event stream of [event, data] pairs. */
export function sse(res, events) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}
