// media.ts (magic numbers, dimensions, base64), byte-ranges.ts (Range, UTF-8 slices), offload.ts,
// session-keys.ts and calibration.ts: the small pure pieces of issue 4.
import { describe, expect, it } from 'vitest';
import { parseRange, sliceUtf8 } from '../../src/modules/sessions/core/byte-ranges.js';
import { addUsage, calibrationView } from '../../src/modules/sessions/core/calibration.js';
import {
  base64DecodedLength,
  decodeBase64,
  imageDimensions,
  sniffMediaType,
} from '../../src/shared/media.js';
import { offloadRefIdOf, offloadReference, toolResultText } from '../../src/modules/sessions/core/offload.js';
import { isSessionStale, sessionKeyFor } from '../../src/modules/sessions/core/session-keys.js';
import { jpegBytes, pdfBytes, pngBytes } from '../helpers/media.js';

describe('media', () => {
  it('sniffs types and reads dimensions from headers', () => {
    expect(sniffMediaType(pngBytes(3, 4))).toBe('image/png');
    expect(imageDimensions(pngBytes(3000, 4000))).toEqual({ width: 3000, height: 4000 });
    expect(sniffMediaType(jpegBytes(5, 6))).toBe('image/jpeg');
    expect(imageDimensions(jpegBytes(1024, 768))).toEqual({ width: 1024, height: 768 });
    const gif = Buffer.from('GIF89a\x0a\x00\x14\x00rest', 'latin1');
    expect(sniffMediaType(gif)).toBe('image/gif');
    expect(imageDimensions(gif)).toEqual({ width: 10, height: 20 });
    const webp = Buffer.alloc(30);
    webp.write('RIFF', 0, 'ascii');
    webp.write('WEBPVP8X', 8, 'ascii');
    webp.writeUIntLE(99, 24, 3);
    webp.writeUIntLE(49, 27, 3);
    expect(sniffMediaType(webp)).toBe('image/webp');
    expect(imageDimensions(webp)).toEqual({ width: 100, height: 50 });
    expect(sniffMediaType(pdfBytes())).toBe('application/pdf');
    expect(sniffMediaType(Buffer.from('hello'))).toBeNull();
  });

  it('decodes strict base64 only', () => {
    expect(decodeBase64('aGVsbG8=')?.toString()).toBe('hello');
    expect(decodeBase64('aGVsbG8')).toBeNull();
    expect(decodeBase64('aGV*bG8=')).toBeNull();
    expect(base64DecodedLength('aGVsbG8=')).toBe(5);
  });
});

describe('byte ranges', () => {
  it('parses single ranges and rejects unsatisfiable ones', () => {
    expect(parseRange(undefined, 10)).toEqual({ kind: 'full' });
    expect(parseRange('bytes=0-3', 10)).toEqual({ kind: 'partial', start: 0, end: 3 });
    expect(parseRange('bytes=5-', 10)).toEqual({ kind: 'partial', start: 5, end: 9 });
    expect(parseRange('bytes=-4', 10)).toEqual({ kind: 'partial', start: 6, end: 9 });
    expect(parseRange('bytes=8-100', 10)).toEqual({ kind: 'partial', start: 8, end: 9 });
    expect(parseRange('bytes=10-', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=5-2', 10)).toEqual({ kind: 'unsatisfiable' });
    expect(parseRange('bytes=0-1,4-5', 10)).toEqual({ kind: 'full' });
    expect(parseRange('items=0-1', 10)).toEqual({ kind: 'full' });
  });

  it('slices UTF-8 without splitting characters', () => {
    const bytes = Buffer.from('aé€😀b');
    // 'é' is 2 bytes, '€' 3, '😀' 4.
    expect(sliceUtf8(bytes, 0, 2)).toMatchObject({ text: 'a', end: 1, done: false });
    expect(sliceUtf8(bytes, 2, 3)).toMatchObject({ text: '€', offset: 3, end: 6 });
    expect(sliceUtf8(bytes, 6, 1)).toMatchObject({ text: '😀', end: 10 });
    expect(sliceUtf8(bytes, 10, 100)).toMatchObject({ text: 'b', done: true });
  });
});

describe('offload references', () => {
  it('formats the reference and finds its ref id again', () => {
    const ref = '0190a0a0-0000-7000-8000-0000000000ff';
    const text = offloadReference({ byteLength: 5000, toolName: 'grep', text: 'ab'.repeat(150), refId: ref });
    expect(text).toBe(
      `[Tool result stored — 5000 bytes from "grep". First 200 chars: ${'ab'.repeat(100)}] Use read_result with ref_id="${ref}"`,
    );
    expect(offloadRefIdOf(text)).toBe(ref);
    expect(offloadRefIdOf([{ type: 'text', text }])).toBe(ref);
    expect(offloadRefIdOf('plain')).toBeNull();
    expect(
      toolResultText([
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ]),
    ).toBe('a\nb');
    expect(toolResultText([{ type: 'image', source: {} }])).toBeNull();
  });
});

describe('session keys and freshness', () => {
  it('builds keys with the right peer', () => {
    expect(
      sessionKeyFor({ agentId: 'a', platform: 'telegram', chatType: 'dm', userId: 'u', channelId: 'c' }),
    ).toBe('agent:a:telegram:dm:u');
    expect(
      sessionKeyFor({ agentId: 'a', platform: 'slack', chatType: 'group', userId: 'u', channelId: 'c' }),
    ).toBe('agent:a:slack:group:c');
    expect(() => sessionKeyFor({ agentId: 'a', platform: 'slack', chatType: 'dm' })).toThrow(/user_id/);
  });

  it('measures staleness from the last turn, else creation', () => {
    const createdAt = new Date('2026-01-01T00:00:00Z');
    const now = new Date('2026-01-01T05:00:00Z');
    expect(isSessionStale({ createdAt, lastTurnAt: null }, now, 4 * 3600_000)).toBe(true);
    expect(
      isSessionStale({ createdAt, lastTurnAt: new Date('2026-01-01T02:00:00Z') }, now, 4 * 3600_000),
    ).toBe(false);
  });
});

describe('usage calibration', () => {
  it('sums per model and reports ratio and cache-read share', () => {
    let calibration = addUsage({ models: {} }, 'm', { input_tokens: 50, cache_read_input_tokens: 150 }, 100);
    calibration = addUsage(calibration, 'm', { input_tokens: 100, cache_creation_input_tokens: 100 }, 300);
    calibration = addUsage(calibration, 'n', { input_tokens: 10 }, 0);
    expect(calibrationView(calibration)).toEqual({
      m: { ratio: 1, cache_read_share: 0.375, calls: 2 },
      n: { ratio: null, cache_read_share: 0, calls: 1 },
    });
  });
});
