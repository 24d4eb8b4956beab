// A port for a child process to listen on (a private PostgreSQL, Redis, PgBouncer or contextd of a
// test, or of the chaos run), drawn where the suite's own connections do not take local ports.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The first port of the kernel's ephemeral range, from which it takes the local port of every
 * outgoing connection (Linux's setting; elsewhere the IANA range's start).
 */
function ephemeralStart(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (low > 0) return low;
  } catch {
    // not Linux
  }
  return 49152;
}

const listenable = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * A port nothing listens on, drawn at random below the ephemeral range. A port the kernel hands
 * out (`listen(0)`) lies inside that range, where the suite's own outgoing connections (to
 * PostgreSQL, Redis) take local ports all the time: one of them taking it between this check and
 * the child's bind failed the child's start (CI: a private redis-server that never answered).
 */
export async function freePort(): Promise<number> {
  const low = 10_000;
  const high = Math.max(low + 1_000, ephemeralStart()) - 1;
  for (let tries = 0; tries < 200; tries += 1) {
    const port = low + Math.floor(Math.random() * (high - low + 1));
    if (await listenable(port)) return port;
  }
  throw new Error(`no free port in ${low}-${high}`);
}
