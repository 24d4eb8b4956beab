// Media bytes: what a file really is (magic numbers), image dimensions from headers, base64 checks.
// Pure; used by content-block validation and by blob uploads.

/** Media types the Messages API accepts for image blocks. */
export const IMAGE_MEDIA_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];
/** Types whose bytes are checked against their magic numbers. */
const SNIFFED_MEDIA_TYPES = [...IMAGE_MEDIA_TYPES, 'application/pdf'] as const;

/** Provider limits for one image (Anthropic: 5 MB per image, at most 8000 px on a side). */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const IMAGE_MAX_DIMENSION = 8000;

/** The media type the bytes are, judged by their magic numbers; null when none of ours. */
export function sniffMediaType(bytes: Uint8Array): (typeof SNIFFED_MEDIA_TYPES)[number] | null {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61)
    return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && ascii(bytes, 8, 4) === 'WEBP') return 'image/webp';
  if (ascii(bytes, 0, 5) === '%PDF-') return 'application/pdf';
  return null;
}

/** Normalizes a Content-Type header value: lower case, no parameters. */
export function baseMediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

export function isSniffedMediaType(mediaType: string): boolean {
  return (SNIFFED_MEDIA_TYPES as readonly string[]).includes(mediaType);
}

/** Width and height read from the image header, or null when the header is not understood. */
export function imageDimensions(bytes: Uint8Array): { width: number; height: number } | null {
  const type = sniffMediaType(bytes);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const u16be = (o: number) => (o + 2 <= bytes.length ? view.getUint16(o, false) : -1);
  try {
    if (type === 'image/png' && bytes.length >= 24) {
      return { width: view.getUint32(16, false), height: view.getUint32(20, false) };
    }
    if (type === 'image/gif' && bytes.length >= 10) {
      return { width: view.getUint16(6, true), height: view.getUint16(8, true) };
    }
    if (type === 'image/webp' && bytes.length >= 30) {
      const chunk = ascii(bytes, 12, 4);
      if (chunk === 'VP8X') {
        const w = 1 + (bytes[24]! | (bytes[25]! << 8) | (bytes[26]! << 16));
        const h = 1 + (bytes[27]! | (bytes[28]! << 8) | (bytes[29]! << 16));
        return { width: w, height: h };
      }
      if (chunk === 'VP8 ') {
        return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff };
      }
      if (chunk === 'VP8L') {
        const b = bytes.subarray(21, 25);
        const width = 1 + (b[0]! | ((b[1]! & 0x3f) << 8));
        const height = 1 + ((b[1]! >> 6) | (b[2]! << 2) | ((b[3]! & 0x0f) << 10));
        return { width, height };
      }
      return null;
    }
    if (type === 'image/jpeg') {
      let offset = 2;
      while (offset + 4 <= bytes.length) {
        if (bytes[offset] !== 0xff) return null;
        const marker = bytes[offset + 1]!;
        // Start-of-frame markers (baseline, progressive, …) carry the dimensions.
        if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
          const height = u16be(offset + 5);
          const width = u16be(offset + 7);
          return width < 0 || height < 0 ? null : { width, height };
        }
        const length = u16be(offset + 2);
        if (length < 2) return null;
        offset += 2 + length;
      }
    }
  } catch {
    return null;
  }
  return null;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes strict base64 (standard alphabet, padded); null when the text is not base64. */
export function decodeBase64(data: string): Buffer | null {
  const compact = data.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) return null;
  return Buffer.from(compact, 'base64');
}

/** Decoded size of valid base64 without decoding it. */
export function base64DecodedLength(data: string): number {
  const compact = data.replace(/\s+/g, '');
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return (compact.length / 4) * 3 - padding;
}

function ascii(bytes: Uint8Array, start: number, length: number): string {
  if (bytes.length < start + length) return '';
  return String.fromCharCode(...bytes.subarray(start, start + length));
}
