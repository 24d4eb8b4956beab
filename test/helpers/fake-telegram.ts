// A local fake of the Telegram Bot API for tests: /bot<token>/getFile (401 Unauthorized for a
// wrong token; 400 "Bad Request: invalid file_id"; 400 "Bad Request: file is too big" past 20 MB,
// the Bot API's download limit) and /file/bot<token>/<file_path> downloads (404 for a wrong token).
import {
  json,
  readParams,
  serveFile,
  startFakeServer,
  type FakeFile,
  type FakeServer,
} from './fake-platform-server.js';

export interface FakeTelegram extends FakeServer {
  /** The Bot API base (TELEGRAM_API_URL). */
  apiUrl: string;
  token: string;
  /** Stores a file and returns its file_id; `declaredSize` overrides the size getFile reports. */
  addFile(file: FakeFile, declaredSize?: number): string;
  mode: 'ok' | 'error500' | 'garbage';
}

const DOWNLOAD_LIMIT = 20 * 1024 * 1024;

export async function startFakeTelegram(options: { token?: string } = {}): Promise<FakeTelegram> {
  const token = options.token ?? '123456789:AAfakeTelegramTokenAbCdEfGhIjKlMnOpQr';
  const files = new Map<string, { file: FakeFile; path: string; size: number }>();
  const byPath = new Map<string, FakeFile>();
  let counter = 0;

  const server = await startFakeServer((req, res, body, url) => {
    const download = /^\/file\/bot([^/]+)\/(.+)$/.exec(url.pathname);
    if (download) {
      const file = byPath.get(download[2]!);
      if (download[1] !== token || !file)
        return json(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
      return serveFile(server, res, file);
    }
    const call = /^\/bot([^/]+)\/(\w+)$/.exec(url.pathname);
    if (!call) return json(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    if (fake.mode === 'error500')
      return json(res, 500, { ok: false, error_code: 500, description: 'Internal Server Error' });
    if (fake.mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end('not json at all');
    }
    if (call[1] !== token) return json(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    if (call[2] !== 'getFile')
      return json(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
    const params = readParams(req, body, url);
    if (!params.file_id)
      return json(res, 400, { ok: false, error_code: 400, description: 'Bad Request: file_id is empty' });
    const entry = files.get(params.file_id);
    if (!entry)
      return json(res, 400, { ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
    if (entry.size > DOWNLOAD_LIMIT)
      return json(res, 400, { ok: false, error_code: 400, description: 'Bad Request: file is too big' });
    json(res, 200, {
      ok: true,
      result: {
        file_id: params.file_id,
        file_unique_id: `u${params.file_id.slice(-8)}`,
        file_size: entry.size,
        file_path: entry.path,
      },
    });
  });

  const fake: FakeTelegram = Object.assign(server, {
    apiUrl: server.origin,
    token,
    mode: 'ok' as FakeTelegram['mode'],
    addFile(file: FakeFile, declaredSize?: number) {
      counter += 1;
      const fileId = `AgACAgIAAxkBAAI${String(counter).padStart(6, '0')}fake`;
      const ext = file.contentType.split('/')[1] ?? 'bin';
      const path = `photos/file_${counter}.${ext}`;
      files.set(fileId, { file, path, size: declaredSize ?? file.bytes.length });
      byPath.set(path, file);
      return fileId;
    },
  });
  return fake;
}
