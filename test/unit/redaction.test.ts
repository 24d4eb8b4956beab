// Redaction corpus: secrets that must go, and look-alikes that must survive untouched.
import { describe, expect, it } from 'vitest';
import { rules as presetRules } from '@secretlint/secretlint-rule-preset-recommend';
import {
  passesLuhn,
  redactContent,
  redactSecrets,
  type RedactionKind,
} from '../../src/modules/memory/core/redaction.js';
import {
  COMMENT_FILTER,
  findPresetSecrets,
  presetMessageKinds,
} from '../../src/modules/memory/core/secretlint-preset.js';
import { findPatternSecrets } from '../../src/modules/memory/core/secret-patterns.js';
import { cpuTimed } from '../helpers/cpu-time.js';
import { lookAlikes, positiveCases } from '../helpers/secret-corpus.js';

const truePositives: { name: string; input: string; secret: string; kind: RedactionKind }[] = [
  {
    name: 'Anthropic key',
    input: 'use sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd for prod',
    secret: 'sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd',
    kind: 'anthropic_key',
  },
  {
    name: 'OpenAI legacy key',
    input: 'OPENAI key sk-AbCdEfGhIjKlMnOpQrStUvWxYz012345 ok',
    secret: 'sk-AbCdEfGhIjKlMnOpQrStUvWxYz012345',
    kind: 'openai_key',
  },
  {
    name: 'OpenAI project key',
    input: 'sk-proj-Zx9_Yw8-Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa',
    secret: 'sk-proj-Zx9_Yw8-Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa',
    kind: 'openai_key',
  },
  {
    name: 'AWS access key',
    input: 'id AKIAIOSFODNN7EXAMPLE.',
    secret: 'AKIAIOSFODNN7EXAMPLE',
    kind: 'aws_access_key',
  },
  {
    name: 'GitHub classic token',
    input: 'token ghp_0123456789abcdefghijABCDEFGHIJ012345 here',
    secret: 'ghp_0123456789abcdefghijABCDEFGHIJ012345',
    kind: 'github_token',
  },
  {
    name: 'GitHub fine-grained token',
    input: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
    secret: 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
    kind: 'github_token',
  },
  {
    name: 'Slack bot token',
    input: 'SLACK xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
    secret: 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
    kind: 'slack_token',
  },
  {
    name: 'Google API key',
    input: 'maps key AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q end',
    secret: 'AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q',
    kind: 'google_api_key',
  },
  {
    name: 'Stripe live key',
    input: 'stripe: sk_live_51H8abcdefghijklmnopqrstuv',
    secret: 'sk_live_51H8abcdefghijklmnopqrstuv',
    kind: 'stripe_key',
  },
  {
    name: 'JWT',
    input:
      'cookie eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    secret:
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    kind: 'jwt',
  },
  {
    name: 'bearer token',
    input: 'curl -H "Authorization: Bearer abcDEF123456ghiJKL789mno" https://x',
    secret: 'abcDEF123456ghiJKL789mno',
    kind: 'bearer_token',
  },
  {
    name: 'password in a URL',
    input: 'DATABASE_URL=postgres://admin:s3cr3t!pw@db.internal:5432/app',
    secret: 's3cr3t!pw',
    kind: 'password',
  },
  { name: 'password=value', input: 'login with password=hunter2 please', secret: 'hunter2', kind: 'secret' },
  {
    name: 'JSON password',
    input: '{"user": "bob", "password": "correct horse battery"}',
    secret: 'correct horse battery',
    kind: 'secret',
  },
  { name: 'api_key: value', input: 'api_key: 9f8e7d6c5b4a', secret: '9f8e7d6c5b4a', kind: 'secret' },
  { name: 'client_secret in env', input: 'CLIENT_SECRET=abc.def-ghi', secret: 'abc.def-ghi', kind: 'secret' },
  {
    name: 'Visa card',
    input: 'card 4111 1111 1111 1111 exp 12/29',
    secret: '4111 1111 1111 1111',
    kind: 'card_number',
  },
  {
    name: 'Mastercard, no spaces',
    input: 'pay 5555555555554444 now',
    secret: '5555555555554444',
    kind: 'card_number',
  },
  {
    name: 'Amex with dashes',
    input: 'amex 3782-822463-10005',
    secret: '3782-822463-10005',
    kind: 'card_number',
  },
];

const falsePositives: { name: string; input: string }[] = [
  { name: 'UUID', input: 'session 0190b3c2-7d1e-7abc-8def-0123456789ab started' },
  { name: 'git SHA', input: 'fixed in commit 3f5e2a9c1b7d4e6f8a0b2c4d6e8f0a1b3c5d7e9f' },
  { name: 'phone number', input: 'call me at +1 (415) 555-0132 or 020 7946 0958' },
  { name: 'ordinary numbers', input: 'we shipped 1,234,567 units; 3.14159; order #998877' },
  { name: 'non-Luhn 16 digits', input: 'ref 4111 1111 1111 1112 and 1234567812345678' },
  { name: 'millisecond timestamp', input: 'at 1700000000000 ms' },
  { name: 'the word password in prose', input: 'I forgot my password again, can you reset it?' },
  { name: 'max_tokens setting', input: 'set max_tokens=4096 and temperature=0.2' },
  { name: 'task-like sk- word', input: 'the sk-learn package and risk-free plans' },
  { name: 'URL without credentials', input: 'see https://example.com/path?q=1 and mailto:a@b.c' },
  { name: 'IPv4 and version', input: 'host 10.0.12.7 runs v4.12.1' },
  { name: 'already redacted', input: 'token [REDACTED:jwt] stays' },
  { name: 'tokens count', input: 'used 1532 tokens: 1200 input' },
  // 40 characters of the AWS secret key's alphabet that are not random enough to be one.
  { name: 'a 40-character path', input: 'see src/channels/IngestStateMachine/tests2 for it' },
  { name: 'a 40-character identifier', input: 'call getUserAccountSettingsHandlerForTeam2 now' },
  { name: 'an upper-case commit SHA', input: 'revert 3F5E2A9C1B7D4E6F8A0B2C4D6E8F0A1B3C5D7E9F' },
  { name: 'padded base64 of 28 bytes', input: 'etag Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4cXV1eA== ok' },
];

describe('redactSecrets', () => {
  it.each(truePositives)('redacts $name', ({ input, secret, kind }) => {
    const { text, counts } = redactSecrets(input);
    expect(text).not.toContain(secret);
    expect(text).toContain(`[REDACTED:${kind}]`);
    expect(counts[kind]).toBeGreaterThanOrEqual(1);
  });

  it.each(falsePositives)('leaves $name alone', ({ input }) => {
    expect(redactSecrets(input)).toEqual({ text: input, counts: {} });
  });

  it('redacts a whole private key block and keeps the text around it', () => {
    const input = [
      'here is the key:',
      '-----BEGIN RSA PRIVATE KEY-----',
      'MIIEpAIBAAKCAQEA1c7+abc/def==',
      'Zm9vYmFy',
      '-----END RSA PRIVATE KEY-----',
      'thanks',
    ].join('\n');
    const { text, counts } = redactSecrets(input);
    expect(text).toBe('here is the key:\n[REDACTED:private_key]\nthanks');
    expect(counts).toEqual({ private_key: 1 });
  });

  it('redacts an unterminated private key block to the end', () => {
    const { text } = redactSecrets('x -----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk');
    expect(text).toBe('x [REDACTED:private_key]');
  });

  it('keeps the user of a URL and the key of a pair', () => {
    expect(redactSecrets('redis://default:pa55word@cache:6379').text).toBe(
      'redis://default:[REDACTED:password]@cache:6379',
    );
    expect(redactSecrets('"api_key": "abc123xyz"').text).toBe('"api_key": "[REDACTED:secret]"');
    expect(redactSecrets('Authorization: Bearer abcdefghijklmnop1234').text).toBe(
      'Authorization: Bearer [REDACTED:bearer_token]',
    );
  });

  it('counts several secrets of several kinds', () => {
    const { counts } = redactSecrets(
      'AKIAIOSFODNN7EXAMPLE and AKIAI44QH8DHBEXAMPLE, card 4242424242424242, password=x1y2z3',
    );
    expect(counts).toEqual({ aws_access_key: 2, card_number: 1, secret: 1 });
  });

  it('is idempotent: redacting twice changes nothing more', () => {
    const once = redactSecrets('password=hunter2 sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz01 4111111111111111');
    expect(redactSecrets(once.text)).toEqual({ text: once.text, counts: {} });
  });
});

describe('passesLuhn', () => {
  it('accepts valid and rejects invalid numbers', () => {
    expect(passesLuhn('4111111111111111')).toBe(true);
    expect(passesLuhn('4111111111111112')).toBe(false);
    expect(passesLuhn('79927398713')).toBe(true);
    expect(passesLuhn('12a4')).toBe(false);
  });
});

describe('redactSecrets: what a review found stored unredacted', () => {
  it.each([
    [
      'a Slack webhook URL',
      'alerts go to https://hooks.slack.com/services/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 now',
      'alerts go to [REDACTED:slack_webhook] now',
    ],
    [
      'an Authorization: Basic header',
      'curl -H "Authorization: Basic YWRtaW46czNjcjN0IQ==" https://api',
      'curl -H "Authorization: Basic [REDACTED:basic_auth]" https://api',
    ],
    [
      'a URL with an empty user',
      'redis://:pa55w0rd@cache:6379/0',
      'redis://:[REDACTED:password]@cache:6379/0',
    ],
    [
      'a URL with an @ in its password',
      'amqp://app:p@ss1@broker/vhost',
      'amqp://app:[REDACTED:password]@broker/vhost',
    ],
    [
      'a Telegram bot token',
      'bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 from BotFather',
      'bot [REDACTED:telegram_bot_token] from BotFather',
    ],
    [
      'an Azure AccountKey',
      'AccountName=acme;AccountKey=' + 'Ab3+'.repeat(21) + 'xy==;EndpointSuffix=core.windows.net',
      'AccountName=acme;AccountKey=[REDACTED:azure_storage_key];EndpointSuffix=core.windows.net',
    ],
    [
      'an AWS secret key in prose',
      'the aws secret key is wJalrXUtnFEMI/K7MDENG/bPxRfiCY1234567890 (rotate it)',
      'the aws secret key is [REDACTED:aws_secret_key] (rotate it)',
    ],
    [
      'an AWS secret key with no "aws" anywhere',
      'the uploader uses wJalrXUtnFEMI/K7MDENG/bPxRfiCY1234567890.',
      'the uploader uses [REDACTED:aws_secret_key].',
    ],
    ['a password in prose', 'my password is hunter2hunter2', 'my password is [REDACTED:password]'],
    [
      'a password= value with & in it',
      'use password=Tr0ub4dor&3 today',
      'use password=[REDACTED:secret] today',
    ],
  ])('redacts %s', (_name, input, expected) => {
    expect(redactSecrets(input).text).toBe(expected);
  });

  it('keeps the key name when the preset finds an AWS secret key (its report starts at the name)', () => {
    expect(redactSecrets('AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY1234567890\nnext').text).toBe(
      'AWS_SECRET_ACCESS_KEY=[REDACTED:aws_secret_key]\nnext',
    );
  });

  it('names an overlap by the specific kind, not the generic one', () => {
    const key = `sk-ant-api03-${'aB3_'.repeat(23)}xAA`;
    expect(redactSecrets(`api_key=${key}`)).toEqual({
      text: 'api_key=[REDACTED:anthropic_key]',
      counts: { anthropic_key: 1 },
    });
  });

  it('cannot be switched off by a secretlint-disable comment in the text', () => {
    const input = '// secretlint-disable\nghp_0123456789abcdefghijABCDEFGHIJ012345';
    expect(redactSecrets(input).text).toBe('// secretlint-disable\n[REDACTED:github_token]');
  });
});

describe('the secretlint preset', () => {
  it('has a kind (or a deliberate null) for every message id its rules can report', () => {
    const ids = presetRules.flatMap((rule) =>
      rule.meta.id === COMMENT_FILTER ? [] : Object.keys(rule.messages),
    );
    expect(ids.filter((id) => !(id in presetMessageKinds))).toEqual([]);
  });
});

describe('redactSecrets on adversarial text', () => {
  // A pattern that rescans a run at every word boundary is quadratic: 200 KB of `a.a.a.…` took
  // minutes with the key pattern this replaced (0.8 s at 16 KB); linear patterns take milliseconds.
  // Bounded in CPU time: a loaded machine stretches wall-clock time, not the CPU time of the work.
  it.each(['a.', 'ab-', 'eyJ-', 'sk-', 'password is ', 'a://b:', 'x@y:', 'password=.', 'Token ', '4 '])(
    'stays linear on 200 KB of %j',
    (unit) => {
      const text = unit.repeat(Math.ceil(200_000 / unit.length));
      expect(cpuTimed(() => redactSecrets(text)).cpuMs).toBeLessThan(1_000);
    },
  );
});

describe('redactContent', () => {
  it('redacts a compaction record: the identifiers a summary left out are said text too', () => {
    const token = 'npm_7S1l8U68PUvOHGxVRaaAhphJUlT8n6Ix3jV9';
    const record = {
      type: 'compaction',
      summary: 'publish with [REDACTED:npm_token] please',
      identifiers: { total: 1, kept: 0, missing: [token] },
      key_terms: { slice: { total: 1, kept: 0, missing: [token] } },
    };
    const out = JSON.stringify(redactContent(record));
    expect(out).not.toContain(token);
    expect(out).toContain('[REDACTED:npm_token]');
    // Thinking blocks stay as they are (their signature covers them).
    const thinking = [{ type: 'thinking', thinking: `it was ${token}`, signature: 'sig' }];
    expect(redactContent(thinking)).toBe(thinking);
  });
});

/**
 * The corpus, and texts built from its fragments joined at random, also cut mid-token and with their
 * case changed: a gate that needs more than its pattern does would miss a match here.
 */
function gateTexts(): string[] {
  const texts = [
    ...truePositives.map((c) => c.input),
    ...positiveCases(20_251_124, 7).map((c) => c.before + c.secret + c.after),
    ...lookAlikes(7_777, 10).map((c) => c.text),
  ];
  let seed = 42;
  const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
  const pieces = texts.flatMap((t) => t.split(/(?<=\s)/));
  for (let i = 0; i < 4_000; i += 1) {
    let text = '';
    for (let n = 1 + Math.floor(random() * 6); n > 0; n -= 1) {
      const piece = pieces[Math.floor(random() * pieces.length)]!;
      const cut = piece.slice(Math.floor(random() * 3));
      text += random() < 0.2 ? cut.toUpperCase() : random() < 0.2 ? cut.toLowerCase() : cut;
    }
    texts.push(text);
  }
  return texts;
}

describe('findPatternSecrets: the gates', () => {
  it('finds the same spans as running every pattern, on the corpus and on texts built from its fragments', () => {
    const texts = gateTexts();
    for (const text of texts)
      expect(findPatternSecrets(text), text).toEqual(findPatternSecrets(text, { gated: false }));
    // Not vacuous: most corpus texts match some pattern.
    expect(texts.filter((t) => findPatternSecrets(t).length > 0).length).toBeGreaterThan(500);
  });
});

describe('findPresetSecrets: the gates', () => {
  it('finds the same spans as running every scanner, on the corpus and on texts built from its fragments', () => {
    const texts = gateTexts();
    for (const text of texts)
      expect(findPresetSecrets(text), text).toEqual(findPresetSecrets(text, { gated: false }));
    // Not vacuous: the corpus holds secrets of every kind the preset names.
    expect(texts.filter((t) => findPresetSecrets(t).length > 0).length).toBeGreaterThan(200);
  });
});
