// Bot tokens at rest: AES-256-GCM under the operator's key (`enc:v1:iv.tag.ciphertext`, base64url),
// or `plain:` + the token when no key is configured. A stored token sealed under another key (or
// tampered with) opens to null, never to garbage.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export function sealToken(token: string, key: Buffer | undefined): string {
  if (!key) return `plain:${token}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
  return `enc:v1:${parts.join('.')}`;
}

export function openToken(stored: string, key: Buffer | undefined): string | null {
  if (stored.startsWith('plain:')) return stored.slice('plain:'.length);
  if (!stored.startsWith('enc:v1:') || !key) return null;
  const [iv, tag, ciphertext] = stored
    .slice('enc:v1:'.length)
    .split('.')
    .map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !tag || !ciphertext) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** The last 4 characters, shown so an operator can tell which token is stored. */
export const tokenHint = (token: string) => token.slice(-4);
