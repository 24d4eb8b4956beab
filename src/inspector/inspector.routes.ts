// GET /inspect: the operator's inspector page (plain HTML, ES modules and CSS from ./static, read
// once at start). The page itself needs no key; every data call it makes carries the pasted key
// against the /v1 API, so it shows nothing the key could not read anyway.
import { readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Config } from '../config.js';
import { notFound } from '../shared/errors.js';
import { COMPACT_SOON_SHARE } from '../modules/context/core/budget.js';

const STATIC_DIR = join(fileURLToPath(new URL('.', import.meta.url)), 'static');

const MEDIA_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Scripts and styles only from this origin, data only from this origin's API, no framing, no
 * forms posting elsewhere. Element styles set through the DOM (`el.style.width`) are not inline
 * style markup, so the bar's widths need no 'unsafe-inline'.
 */
const INSPECTOR_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

interface StaticFile {
  body: Buffer;
  type: string;
}

/** Every file of the static folder, by name (a flat folder: no paths reach the filesystem). */
function loadStaticFiles(): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  for (const name of readdirSync(STATIC_DIR)) {
    const type = MEDIA_TYPES[extname(name)];
    if (type) files.set(name, { body: readFileSync(join(STATIC_DIR, name)), type });
  }
  return files;
}

function send(reply: FastifyReply, file: StaticFile) {
  return reply
    .header('content-security-policy', INSPECTOR_CSP)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-cache')
    .type(file.type)
    .send(file.body);
}

export function inspectorRoutes(config: Pick<Config, 'COMPACT_TRIGGER' | 'HARD_BLOCK'>): FastifyPluginAsync {
  const files = loadStaticFiles();
  const index = files.get('index.html');
  if (!index) throw new Error(`inspector page missing: ${join(STATIC_DIR, 'index.html')}`);
  // The budget states' thresholds as this instance applies them: the marks on the drawn bar.
  const thresholds: StaticFile = {
    body: Buffer.from(
      JSON.stringify({
        compact_soon: COMPACT_SOON_SHARE,
        compact_trigger: config.COMPACT_TRIGGER,
        hard_block: config.HARD_BLOCK,
      }),
    ),
    type: 'application/json; charset=utf-8',
  };
  return async (app) => {
    app.get('/inspect', { schema: { hide: true } }, async (_request, reply) => send(reply, index));
    app.get('/inspect/thresholds.json', { schema: { hide: true } }, async (_request, reply) =>
      send(reply, thresholds),
    );
    app.get<{ Params: { file: string } }>(
      '/inspect/:file',
      { schema: { hide: true } },
      async (request, reply) => {
        const file = files.get(request.params.file);
        if (!file)
          throw notFound('inspector.file_not_found', `the inspector has no file ${request.params.file}`);
        return send(reply, file);
      },
    );
  };
}
