// Listen mode: Slack's Events API posts to POST /slack/events. Each request must carry Slack's
// signature (v0, signing secret, five-minute window) or it is a 401; the url_verification
// handshake is answered with its challenge; anything else is acknowledged at once (Slack wants an
// answer within 3 seconds and retries otherwise) and handled after the acknowledgement.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BotReply, SlackBot } from './bot.js';
import { isSlackEnvelope, signatureProblem } from './slack.js';

export interface SlackListenerOptions {
  bot: SlackBot;
  signingSecret: string;
  port: number;
  host?: string;
  onReply: (reply: BotReply) => void;
  onError: (error: unknown) => void;
  /** The clock the signature window is checked against. */
  now?: () => Date;
}

export interface SlackListener {
  url: string;
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startSlackListener(options: SlackListenerOptions): Promise<SlackListener> {
  const now = options.now ?? (() => new Date());
  const pending = new Set<Promise<unknown>>();

  async function receive(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/slack/events') {
      return send(res, 404, { error: 'POST /slack/events only' });
    }
    const rawBody = await readBody(req);
    if (!rawBody) return send(res, 413, { error: 'body over 1 MiB' });
    const header = (name: string) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const problem = signatureProblem({
      secret: options.signingSecret,
      timestamp: header('x-slack-request-timestamp'),
      signature: header('x-slack-signature'),
      rawBody,
      now: now(),
    });
    if (problem) return send(res, 401, { error: problem });
    let envelope: unknown;
    try {
      envelope = JSON.parse(rawBody.toString('utf8'));
    } catch {
      return send(res, 400, { error: 'body is not JSON' });
    }
    if (!isSlackEnvelope(envelope)) return send(res, 400, { error: 'not an Events API envelope' });
    if (envelope.type === 'url_verification') return send(res, 200, { challenge: envelope.challenge });
    send(res, 200, { ok: true });
    const work = options.bot
      .handle(envelope)
      .then((reply) => {
        if (reply) options.onReply(reply);
      })
      .catch(options.onError)
      .finally(() => pending.delete(work));
    pending.add(work);
  }

  const server = createServer((req, res) => {
    receive(req, res).catch((error: unknown) => {
      options.onError(error);
      if (!res.headersSent) send(res, 500, { error: 'internal error' });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/slack/events`,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await Promise.all(pending);
    },
  };
}
