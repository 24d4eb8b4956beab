// Pure parts of platform access: which addresses may be connected to, token sealing, token formats.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createAddressGuard } from '../../src/platforms/api/address-guard.js';
import { redactSecrets, retryAfterMs } from '../../src/platforms/api/platform-errors.js';
import { openToken, sealToken, tokenHint } from '../../src/modules/platforms/core/token-cipher.js';
import { credentialProblems } from '../../src/modules/platforms/core/token-format.js';
import { imageTokens } from '../../src/shared/tokens.js';
import { parseConfig } from '../../src/config.js';

describe('address guard', () => {
  const guard = createAddressGuard([]);
  it.each([
    '127.0.0.1',
    '127.9.9.9',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '::1',
    '::',
    'fc00::1',
    'fd12:3456::1',
    'fe80::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '192.88.99.1',
    '2002:7f00:1::1',
    '2002:a00:1::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '64:ff9b:1::a00:1',
    '64:ff9b::7f00:1',
  ])('refuses %s', (address) => {
    expect(guard.refusal(address)).toMatch(/private or reserved/);
  });

  it.each([
    '8.8.8.8',
    '172.32.0.1',
    '192.169.0.1',
    '2606:4700::1111',
    '::ffff:1.1.1.1',
    '2001:4860::8888',
    '192.88.100.1',
  ])('lets %s through', (a) => {
    expect(guard.refusal(a)).toBeNull();
  });

  it('lets through what the operator allows, and only that', () => {
    const allowing = createAddressGuard(['127.0.0.1', '10.20.0.0/16', 'fd00::/8']);
    expect(allowing.refusal('127.0.0.1')).toBeNull();
    expect(allowing.refusal('127.0.0.2')).not.toBeNull();
    expect(allowing.refusal('10.20.5.5')).toBeNull();
    expect(allowing.refusal('10.21.0.1')).not.toBeNull();
    expect(allowing.refusal('fd00::5')).toBeNull();
    expect(allowing.refusal('169.254.169.254')).not.toBeNull();
  });

  it('refuses a name that resolves to a private address in its lookup', async () => {
    const error = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      guard.lookup('localhost', {}, (e) => resolve(e)),
    );
    expect(error?.code).toBe('EADDRREFUSEDBYPOLICY');
  });
});

describe('token sealing', () => {
  const key = randomBytes(32);
  const token = 'xoxb-1234567890-abcdefghijkl';
  it('round-trips under the key and hides the token', () => {
    const sealed = sealToken(token, key);
    expect(sealed.startsWith('enc:v1:')).toBe(true);
    expect(sealed).not.toContain(token);
    expect(openToken(sealed, key)).toBe(token);
  });
  it('opens to null under another key, without a key, or tampered', () => {
    const sealed = sealToken(token, key);
    expect(openToken(sealed, randomBytes(32))).toBeNull();
    expect(openToken(sealed, undefined)).toBeNull();
    expect(openToken(sealed.slice(0, -2) + (sealed.endsWith('A') ? 'BB' : 'AA'), key)).toBeNull();
  });
  it('stores plain without a key', () => {
    expect(openToken(sealToken(token, undefined), undefined)).toBe(token);
    expect(tokenHint(token)).toBe('ijkl');
  });
});

describe('token formats', () => {
  it('accepts each platform’s shape and refuses the others', () => {
    expect(credentialProblems('slack', 'xoxb-1111-2222-abcdefghij', 'T0123ABC')).toEqual([]);
    expect(credentialProblems('telegram', '123456:AAabcdefghijklmnopqrstuvwxyz012345', undefined)).toEqual(
      [],
    );
    expect(
      credentialProblems(
        'discord',
        'MTA5ODc2NTQzMjEwOTg3NjU0Mw.GfAkEd.abcdefghijklmnopqrstuvwxyz',
        '123456789012345678',
      ),
    ).toEqual([]);
    expect(credentialProblems('slack', '123456:AAabcdefghijklmnopqrstuvwxyz012345', undefined)[0]?.path).toBe(
      'body.bot_token',
    );
    expect(credentialProblems('telegram', '123456:AAabcdefghijklmnopqrstuvwxyz012345', 'T1')[0]?.path).toBe(
      'body.workspace_id',
    );
  });
  it('never quotes the token in a problem', () => {
    const secret = 'xoxq-not-a-real-token-but-secret';
    expect(JSON.stringify(credentialProblems('slack', secret, undefined))).not.toContain(secret);
  });
});

describe('error helpers', () => {
  it('cuts secrets out, raw and URL-encoded', () => {
    expect(redactSecrets('GET /bot123:abc/getFile and 123%3Aabc', ['123:abc'])).toBe(
      'GET /bot[redacted]/getFile and [redacted]',
    );
  });
  it('reads Retry-After in seconds or as a date', () => {
    expect(retryAfterMs('3', 0)).toBe(3000);
    expect(retryAfterMs('1.5', 0)).toBe(1500);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4_000)).toBe(6000);
    expect(retryAfterMs('soon', 0)).toBeUndefined();
  });
});

describe('image tokens by the provider rule', () => {
  it('counts width × height / 750 after fitting 1568 px and ~1,600 tokens, capped', () => {
    expect(imageTokens(20, 20)).toBe(1);
    expect(imageTokens(640, 480)).toBe(410);
    // The long edge is brought to 1568 px first: 1568 × 39.
    expect(imageTokens(4000, 100)).toBe(Math.ceil((1568 * 39) / 750));
    // Past ~1,600 tokens (1.2 MP) the image is scaled down to fit: 1095 × 1095.
    expect(imageTokens(3000, 3000)).toBe(Math.ceil((1095 * 1095) / 750));
    expect(imageTokens(1092, 1092)).toBe(1590);
    expect(imageTokens()).toBe(1600);
  });
});

describe('platform configuration', () => {
  it('takes a 32-byte token key as hex or base64 and refuses anything else', () => {
    const hex = randomBytes(32).toString('hex');
    expect(parseConfig({ PLATFORM_TOKEN_KEY: hex }).PLATFORM_TOKEN_KEY?.toString('hex')).toBe(hex);
    const b64 = randomBytes(32).toString('base64');
    expect(parseConfig({ PLATFORM_TOKEN_KEY: b64 }).PLATFORM_TOKEN_KEY?.toString('base64')).toBe(b64);
    expect(() => parseConfig({ PLATFORM_TOKEN_KEY: 'short' })).toThrow(/PLATFORM_TOKEN_KEY/);
    expect(parseConfig({}).PLATFORM_TOKEN_KEY).toBeUndefined();
  });
  it('takes addresses and CIDRs to allow, and refuses names', () => {
    expect(
      parseConfig({ PLATFORM_FETCH_ALLOW: '127.0.0.1, 10.0.0.0/8,fd00::/8' }).PLATFORM_FETCH_ALLOW,
    ).toEqual(['127.0.0.1', '10.0.0.0/8', 'fd00::/8']);
    expect(() => parseConfig({ PLATFORM_FETCH_ALLOW: 'loopback' })).toThrow(/PLATFORM_FETCH_ALLOW/);
    expect(() => parseConfig({ PLATFORM_FETCH_ALLOW: '10.0.0.0/33' })).toThrow(/PLATFORM_FETCH_ALLOW/);
    expect(parseConfig({}).PLATFORM_FETCH_ALLOW).toEqual([]);
  });
});
