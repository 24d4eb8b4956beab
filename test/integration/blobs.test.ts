// Blobs through HTTP: raw uploads, SHA-256 dedupe per tenant, size limit, magic-number checks,
// Range reads, text slices, tenant isolation, restarts; and the attachment manifest.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, errorOf, type TestContext, type TestTenant } from '../helpers/app.js';
import { pdfBytes, pngBytes } from '../helpers/media.js';

let ctx: TestContext;
let t: TestTenant;
beforeAll(async () => {
  ctx = await createTestApp({ env: { BLOB_LIMIT_BYTES: '4096' } });
  t = await ctx.tenant();
});
afterAll(async () => {
  await ctx?.close();
});

const upload = (body: Buffer | string, contentType: string | undefined, url = '/v1/blobs', tenant = t) =>
  tenant.inject({
    method: 'POST',
    url,
    payload: body,
    headers: contentType ? { 'content-type': contentType } : {},
  });

describe('POST /v1/blobs', () => {
  it('stores bytes and deduplicates the same bytes per tenant', async () => {
    const png = pngBytes(640, 480);
    const first = await upload(png, 'image/png', '/v1/blobs?filename=cat.png');
    expect(first.statusCode, first.body).toBe(201);
    const body = first.json();
    expect(body).toMatchObject({
      sha256: createHash('sha256').update(png).digest('hex'),
      byte_length: png.length,
      media_type: 'image/png',
      filename: 'cat.png',
      kind: 'media',
      deduplicated: false,
    });
    const again = await upload(png, 'image/png');
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ artifact_id: body.artifact_id, deduplicated: true });

    const other = await ctx.tenant();
    const theirs = await upload(png, 'image/png', '/v1/blobs', other);
    expect(theirs.statusCode).toBe(201);
    expect(theirs.json().artifact_id).not.toBe(body.artifact_id);
    // Another tenant's artifact id is a 404.
    const cross = await other.inject({ url: `/v1/blobs/${body.artifact_id}` });
    expect(cross.statusCode).toBe(404);
    expect(errorOf(cross).code).toBe('blob.not_found');
  });

  it('takes the filename from the X-Filename header, and JSON bodies as raw bytes', async () => {
    const response = await t.inject({
      method: 'POST',
      url: '/v1/blobs',
      payload: '{"a": 1}',
      headers: { 'content-type': 'application/json', 'x-filename': 'data.json' },
    });
    expect(response.statusCode, response.body).toBe(201);
    expect(response.json()).toMatchObject({
      filename: 'data.json',
      media_type: 'application/json',
      byte_length: 8,
    });
  });

  it('rejects bad uploads with clear codes', async () => {
    const tooBig = await upload(Buffer.alloc(5000, 1), 'application/octet-stream');
    expect(tooBig.statusCode).toBe(413);
    const mismatch = await upload(pdfBytes(), 'image/png');
    expect(mismatch.statusCode).toBe(422);
    expect(errorOf(mismatch)).toMatchObject({
      code: 'blob.media_type_mismatch',
      details: { actual: 'application/pdf' },
    });
    const bmp = await upload(Buffer.from('BM....'), 'image/bmp');
    expect(bmp.statusCode).toBe(415);
    expect(errorOf(bmp).code).toBe('blob.unsupported_media_type');
    const untyped = await upload('abc', undefined);
    expect(untyped.statusCode).toBe(415);
    expect(errorOf(untyped).code).toBe('blob.unsupported_media_type');
    const empty = await upload(Buffer.alloc(0), 'text/plain');
    expect(empty.statusCode).toBe(400);
    const noSession = await upload('x', 'text/plain', `/v1/blobs?session_id=${ctx.deps.ids.next()}`);
    expect(noSession.statusCode).toBe(404);
    expect((await upload(pdfBytes(), 'application/pdf')).statusCode).toBe(201);
  });
});

describe('GET /v1/blobs/{id}', () => {
  it('serves bytes with Range support', async () => {
    const text = 'abcdefghijklmnopqrstuvwxyz';
    const { artifact_id: id } = (
      await upload(text, 'text/plain; charset=utf-8', '/v1/blobs?filename=abc.txt')
    ).json();
    const full = await t.inject({ url: `/v1/blobs/${id}` });
    expect(full.statusCode).toBe(200);
    expect(full.body).toBe(text);
    expect(full.headers['accept-ranges']).toBe('bytes');
    expect(full.headers['content-type']).toBe('text/plain; charset=utf-8');

    const part = await t.inject({ url: `/v1/blobs/${id}`, headers: { range: 'bytes=2-5' } });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe('cdef');
    expect(part.headers['content-range']).toBe(`bytes 2-5/${text.length}`);
    const suffix = await t.inject({ url: `/v1/blobs/${id}`, headers: { range: 'bytes=-3' } });
    expect(suffix.body).toBe('xyz');
    const open = await t.inject({ url: `/v1/blobs/${id}`, headers: { range: 'bytes=20-' } });
    expect(open.body).toBe('uvwxyz');
    const outside = await t.inject({ url: `/v1/blobs/${id}`, headers: { range: 'bytes=100-200' } });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe(`bytes */${text.length}`);
  });

  it('serves UTF-8-safe text slices with ?offset=&limit=', async () => {
    const text = 'héllo wörld '.repeat(10);
    const { artifact_id: id } = (await upload(text, 'text/plain')).json();
    let offset: number | null = 0;
    let joined = '';
    while (offset !== null) {
      const page: { text: string; next_offset: number | null } = (
        await t.inject({ url: `/v1/blobs/${id}?offset=${offset}&limit=7` })
      ).json();
      joined += page.text;
      offset = page.next_offset;
    }
    expect(joined).toBe(text);
    const png = (await upload(pngBytes(2, 2, 3), 'image/png')).json();
    const notText = await t.inject({ url: `/v1/blobs/${png.artifact_id}?offset=0` });
    expect(notText.statusCode).toBe(422);
    expect(errorOf(notText).code).toBe('blob.not_text');
  });

  it('404s unknown and malformed ids, and reads back from a second app instance', async () => {
    expect((await t.inject({ url: `/v1/blobs/${ctx.deps.ids.next()}` })).statusCode).toBe(404);
    expect((await t.inject({ url: '/v1/blobs/nope' })).statusCode).toBe(404);
    const { artifact_id: id } = (await upload('persisted', 'text/plain')).json();
    const second = await createTestApp({ testDb: ctx.testDb });
    try {
      const response = await second.app.inject({ url: `/v1/blobs/${id}`, headers: t.headers });
      expect(response.body).toBe('persisted');
    } finally {
      await second.close();
    }
  });
});

describe('attachment manifest', () => {
  it('records inclusions, dedupes by artifact id and content hash, and survives a restart', async () => {
    const session = (
      await t.inject({ method: 'POST', url: '/v1/sessions', payload: { session_key: 'manifest:test' } })
    ).json().session;
    const png = pngBytes(10, 10, 77);
    const blob = (await upload(png, 'image/png', '/v1/blobs?filename=a.png')).json();
    const manifest = ctx.app.services.manifest;
    const base = { tenantId: t.tenantId, sessionId: session.id };
    expect(await manifest.isAlreadyIncluded({ ...base, artifactId: blob.artifact_id })).toBe(false);
    expect(
      await manifest.record({
        ...base,
        artifactId: blob.artifact_id,
        contentHash: blob.sha256,
        displayName: 'a.png',
        mediaType: 'image/png',
        sourceMessageId: 'M1',
        sourceThreadId: 'T1',
        includedAtTurn: 3,
      }),
    ).toEqual({ created: true });
    expect(
      await manifest.record({
        ...base,
        artifactId: blob.artifact_id,
        contentHash: blob.sha256,
        includedAtTurn: 9,
      }),
    ).toEqual({ created: false });
    expect(await manifest.isAlreadyIncluded({ ...base, artifactId: blob.artifact_id })).toBe(true);
    // The same bytes under another id count as included.
    expect(
      await manifest.isAlreadyIncluded({ ...base, artifactId: ctx.deps.ids.next(), sha256: blob.sha256 }),
    ).toBe(true);
    expect(await manifest.isAlreadyIncluded({ ...base, sha256: 'f'.repeat(64) })).toBe(false);
    // Scoped by session and tenant.
    const other = await ctx.tenant();
    expect(
      await manifest.isAlreadyIncluded({
        tenantId: other.tenantId,
        sessionId: session.id,
        artifactId: blob.artifact_id,
      }),
    ).toBe(false);

    const second = await createTestApp({ testDb: ctx.testDb });
    try {
      expect(await second.app.services.manifest.isAlreadyIncluded({ ...base, sha256: blob.sha256 })).toBe(
        true,
      );
      const listed = await second.app.inject({
        url: `/v1/sessions/${session.id}/attachments`,
        headers: t.headers,
      });
      expect(listed.json().attachments).toEqual([
        expect.objectContaining({
          artifact_id: blob.artifact_id,
          content_hash: blob.sha256,
          display_name: 'a.png',
          source_message_id: 'M1',
          source_thread_id: 'T1',
          included_at_turn: 3,
        }),
      ]);
    } finally {
      await second.close();
    }
  });
});
