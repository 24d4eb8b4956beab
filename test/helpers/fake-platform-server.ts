// What the fake platform APIs share: a local HTTP server on 127.0.0.1, request logging, and file
// replies that can misbehave on demand (500, garbage, a redirect elsewhere, a 2 GB body, a hang).
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeFile {
  bytes: Buffer;
  contentType: string;
  /**
   * ok: the bytes; error500; garbage (HTML error page); redirect (302 to `redirectTo`);
   * huge (declares and streams 2 GB); huge_chunked (streams 2 GB without a length); hang.
   */
  behaviour?: 'ok' | 'error500' | 'garbage' | 'redirect' | 'huge' | 'huge_chunked' | 'hang';
  redirectTo?: string;
}

export interface LoggedRequest {
  method: string;
  path: string;
  authorization: string | undefined;
  /** When the request arrived (Date.now()): rate-limit checks count calls per window. */
  at: number;
}

export interface FakeServer {
  origin: string;
  requests: LoggedRequest[];
  /** Bytes the fake wrote for huge files (to show the client stopped early). */
  hugeBytesSent: number;
  close(): Promise<void>;
}

export const TWO_GB = 2 * 1024 * 1024 * 1024;

export async function startFakeServer(
  handle: (req: IncomingMessage, res: ServerResponse, body: Buffer, url: URL) => unknown,
): Promise<FakeServer> {
  const requests: LoggedRequest[] = [];
  const state = { hugeBytesSent: 0 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      requests.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        authorization: req.headers.authorization,
        at: Date.now(),
      });
      Promise.resolve(handle(req, res, Buffer.concat(chunks), url)).catch((error: unknown) => {
        res.statusCode = 500;
        res.end(String(error));
      });
    });
  });
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeServer = {
    origin: `http://127.0.0.1:${port}`,
    requests,
    get hugeBytesSent() {
      return state.hugeBytesSent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  serveFile.state.set(fake, state);
  return fake;
}

export function json(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
}

/** Answers with a file according to its behaviour. */
export function serveFile(fake: FakeServer, res: ServerResponse, file: FakeFile): void {
  const state = serveFile.state.get(fake)!;
  switch (file.behaviour ?? 'ok') {
    case 'ok':
      res.writeHead(200, { 'content-type': file.contentType, 'content-length': String(file.bytes.length) });
      res.end(file.bytes);
      return;
    case 'error500':
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('internal error');
      return;
    case 'garbage':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Something went wrong</body></html>');
      return;
    case 'redirect':
      res.writeHead(302, { location: file.redirectTo ?? 'http://localhost/' });
      res.end();
      return;
    case 'hang':
      return;
    case 'huge':
    case 'huge_chunked': {
      res.writeHead(200, {
        'content-type': file.contentType,
        ...(file.behaviour === 'huge' ? { 'content-length': String(TWO_GB) } : {}),
      });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      let sent = 0;
      const pump = () => {
        while (sent < TWO_GB && !res.destroyed) {
          sent += chunk.length;
          state.hugeBytesSent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        if (!res.destroyed) res.end();
      };
      res.on('close', () => {
        sent = TWO_GB;
      });
      pump();
      return;
    }
  }
}
serveFile.state = new WeakMap<FakeServer, { hugeBytesSent: number }>();

/** Reads a form-encoded or JSON request body into string values. */
export function readParams(req: IncomingMessage, body: Buffer, url: URL): Record<string, string> {
  const params: Record<string, string> = Object.fromEntries(url.searchParams);
  const type = req.headers['content-type'] ?? '';
  const text = body.toString('utf8');
  if (type.startsWith('application/x-www-form-urlencoded')) {
    Object.assign(params, Object.fromEntries(new URLSearchParams(text)));
  } else if (type.startsWith('application/json') && text) {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    for (const [k, v] of Object.entries(parsed)) params[k] = typeof v === 'string' ? v : JSON.stringify(v);
  }
  return params;
}
