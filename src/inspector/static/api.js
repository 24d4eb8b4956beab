// The /v1 API as the page calls it: the pasted key as Bearer, kept in sessionStorage only (gone
// when the tab closes), and errors turned into one readable line.

const KEY_ITEM = 'contextd.inspect.key';

export function storedKey() {
  return sessionStorage.getItem(KEY_ITEM);
}

export function storeKey(key) {
  sessionStorage.setItem(KEY_ITEM, key);
}

export function forgetKey() {
  sessionStorage.removeItem(KEY_ITEM);
}

export class ApiError extends Error {
  constructor(status, code, message) {
    super(`${status} ${code}: ${message}`);
    this.status = status;
    this.code = code;
  }
}

/** GET a /v1 path (already encoded) and return its JSON. */
export async function api(path) {
  const key = storedKey();
  if (!key) throw new ApiError(401, 'auth.missing_key', 'paste an API key first');
  const response = await fetch(path, { headers: { authorization: `Bearer ${key}` } });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = body?.error ?? {};
    throw new ApiError(response.status, error.code ?? 'http_error', error.message ?? response.statusText);
  }
  return body;
}

export const sessionPath = (id, rest = '') => `/v1/sessions/${encodeURIComponent(id)}${rest}`;

/** POST a JSON body to a /v1 path (already encoded) and return the reply's JSON. */
export async function apiPost(path, body) {
  const key = storedKey();
  if (!key) throw new ApiError(401, 'auth.missing_key', 'paste an API key first');
  const response = await fetch(path, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const reply = await response.json().catch(() => null);
  if (!response.ok) {
    const error = reply?.error ?? {};
    throw new ApiError(response.status, error.code ?? 'http_error', error.message ?? response.statusText);
  }
  return reply;
}
