// Anthropic content blocks as accepted on turns: the zod shapes (structure → 400 with the field
// path) and the byte-level checks zod cannot do (base64, magic numbers, provider image limits →
// 422 with the field path). Unknown fields on a block are kept: the turn is stored as sent.
import { z } from 'zod';
import { unprocessable } from './errors.js';
import {
  base64DecodedLength,
  decodeBase64,
  IMAGE_MAX_BYTES,
  IMAGE_MAX_DIMENSION,
  IMAGE_MEDIA_TYPES,
  imageDimensions,
  sniffMediaType,
} from './media.js';

/** Tool ids and names as the Messages API accepts them. */
const TOOL_ID_PATTERN = /^[a-zA-Z0-9_-]{1,128}$/;
const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

const nonBlank = z.string().regex(/\S/, 'must contain non-whitespace text');

const textBlockSchema = z.looseObject({ type: z.literal('text'), text: nonBlank });

const base64ImageSource = z.looseObject({
  type: z.literal('base64'),
  media_type: z.enum(IMAGE_MEDIA_TYPES),
  data: z.string().min(1),
});
const urlSource = z.looseObject({ type: z.literal('url'), url: z.url() });
const fileSource = z.looseObject({ type: z.literal('file'), file_id: z.string().min(1) });

const imageBlockSchema = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [base64ImageSource, urlSource, fileSource]),
});

const documentBlockSchema = z.looseObject({
  type: z.literal('document'),
  source: z.discriminatedUnion('type', [
    z.looseObject({
      type: z.literal('base64'),
      media_type: z.literal('application/pdf'),
      data: z.string().min(1),
    }),
    z.looseObject({ type: z.literal('text'), media_type: z.literal('text/plain'), data: z.string() }),
    urlSource,
    fileSource,
    z.looseObject({ type: z.literal('content'), content: z.union([z.string(), z.array(z.unknown())]) }),
  ]),
  title: z.string().optional(),
  context: z.string().optional(),
});

const toolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().regex(TOOL_ID_PATTERN, 'tool ids are 1–128 characters of [a-zA-Z0-9_-]'),
  name: z.string().regex(TOOL_NAME_PATTERN, 'tool names are 1–64 characters of [a-zA-Z0-9_-]'),
  input: z.record(z.string(), z.unknown()),
});

const toolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().regex(TOOL_ID_PATTERN, 'tool ids are 1–128 characters of [a-zA-Z0-9_-]'),
  content: z
    .union([
      z.string(),
      z.array(z.discriminatedUnion('type', [textBlockSchema, imageBlockSchema, documentBlockSchema])),
    ])
    .optional(),
  is_error: z.boolean().optional(),
});

// Thinking blocks are stored as the API returned them: while a tool loop is open they go back to
// the API unmodified, and it checks the signature (or the encrypted data) it issued.
const thinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().min(1, 'a thinking block keeps the signature the API returned with it'),
});

const redactedThinkingBlockSchema = z.looseObject({
  type: z.literal('redacted_thinking'),
  data: z.string().min(1),
});

const contentBlockSchema = z.discriminatedUnion('type', [
  textBlockSchema,
  imageBlockSchema,
  documentBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
  thinkingBlockSchema,
  redactedThinkingBlockSchema,
]);

export type ContentBlock = z.infer<typeof contentBlockSchema>;

const contentBlocksSchema = z.array(contentBlockSchema).min(1);
export type TurnContent = string | ContentBlock[];

/**
 * A turn's content: a non-blank string or at least one block. Checked in two steps so a bad block
 * is reported at its own path (`content.2.source.data`), not as "no union member matched".
 */
export const turnContentSchema = z
  .union([z.string(), z.array(z.looseObject({ type: z.string() }))])
  .describe('a string, or Anthropic content blocks: text, image, document, tool_use, tool_result, thinking')
  .superRefine((value, ctx) => {
    const result = (typeof value === 'string' ? nonBlank : contentBlocksSchema).safeParse(value);
    if (result.success) return;
    for (const issue of result.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: [...issue.path] });
    }
  }) as unknown as z.ZodType<TurnContent>;

/** Content as a block list (a string is one text block). */
export function contentBlocks(content: unknown): ContentBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content as ContentBlock[]) : [];
}

/**
 * The text of a block that is `{ type: "text", text }` with no other key than those in `alsoAllowed`
 * (most history blocks); null for any other value. Callers that rebuild or hash such a block from
 * its text alone skip walking it as JSON.
 */
export function plainTextOf(block: unknown, alsoAllowed: readonly string[] = []): string | null {
  if (!block || typeof block !== 'object' || Array.isArray(block)) return null;
  const b = block as Record<string, unknown>;
  if (b.type !== 'text' || typeof b.text !== 'string') return null;
  for (const key in b) if (key !== 'type' && key !== 'text' && !alsoAllowed.includes(key)) return null;
  return b.text;
}

interface MediaFacts {
  /** Dimensions of each base64 image found, in block order (for token estimates). */
  images: { path: string; width: number; height: number }[];
}

/**
 * Checks what the shapes cannot: base64 that decodes, bytes that are what media_type says,
 * images within provider limits. `path` names the content in error details (e.g. `turns.0.content`).
 */
export function checkContentMedia(content: TurnContent, path: string): MediaFacts {
  const facts: MediaFacts = { images: [] };
  if (typeof content === 'string') return facts;
  content.forEach((block, index) => checkBlock(block, `${path}.${index}`, facts));
  return facts;
}

function checkBlock(block: ContentBlock, path: string, facts: MediaFacts): void {
  if (block.type === 'image' && block.source.type === 'base64') {
    const { data, media_type: declared } = block.source as { data: string; media_type: string };
    const dataPath = `${path}.source.data`;
    const decodedLength = base64DecodedLength(data);
    if (decodedLength > IMAGE_MAX_BYTES) {
      throw unprocessable(
        'content.image_too_large',
        `${dataPath}: image is ${decodedLength} bytes; the provider limit is ${IMAGE_MAX_BYTES}`,
        { path: dataPath, byte_length: decodedLength, limit: IMAGE_MAX_BYTES },
      );
    }
    const bytes = decodeOrThrow(data, dataPath);
    checkMagic(bytes, declared, `${path}.source.media_type`);
    const dims = imageDimensions(bytes);
    if (dims && (dims.width > IMAGE_MAX_DIMENSION || dims.height > IMAGE_MAX_DIMENSION)) {
      throw unprocessable(
        'content.image_dimensions_exceeded',
        `${path}: image is ${dims.width}×${dims.height} px; the provider limit is ${IMAGE_MAX_DIMENSION} px per side`,
        { path, ...dims, limit: IMAGE_MAX_DIMENSION },
      );
    }
    if (dims) facts.images.push({ path, ...dims });
  }
  if (block.type === 'document' && block.source.type === 'base64') {
    const dataPath = `${path}.source.data`;
    const bytes = decodeOrThrow((block.source as { data: string }).data, dataPath);
    checkMagic(bytes, 'application/pdf', `${path}.source.media_type`);
  }
  if (block.type === 'tool_result' && Array.isArray(block.content)) {
    block.content.forEach((inner, index) =>
      checkBlock(inner as ContentBlock, `${path}.content.${index}`, facts),
    );
  }
}

function decodeOrThrow(data: string, path: string): Buffer {
  const bytes = decodeBase64(data);
  if (!bytes || bytes.length === 0) {
    throw unprocessable('content.invalid_base64', `${path}: not valid base64`, { path });
  }
  return bytes;
}

function checkMagic(bytes: Uint8Array, declared: string, path: string): void {
  const actual = sniffMediaType(bytes);
  if (actual !== declared) {
    throw unprocessable(
      'content.media_type_mismatch',
      `${path}: declared ${declared} but the bytes are ${actual ?? 'not a recognised format'}`,
      { path, declared, actual },
    );
  }
}

/** Tags of the labelled blocks contextd renders into a user turn (channel, retrieved, notes). */
const RENDERED_CONTEXT =
  /^<(channel_snapshot|thread_context|quoted_reply|retrieved_context|pending_slot|context_notes|lane_summary)[\s>][\s\S]*<\/\1>$/;

/**
 * The tag when a text block is context contextd rendered into a turn (not the user's words), else
 * null: old turns' context is cleared from the view and never summarized (docs/compaction.md).
 */
export function renderedContextTag(text: string): string | null {
  return RENDERED_CONTEXT.exec(text)?.[1] ?? null;
}
