// The detection rules of secretlint's recommended preset, run synchronously over one text: each
// scanner rule is created once with a minimal rule context and its `file` handler is called with the
// text; every report becomes a span whose kind is named by the rule's message id.
import { rules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretLintRuleContext, SecretLintSourceCode } from '@secretlint/types';
import type { RedactionKind, SecretSpan } from './secret-patterns.js';

/** The kind each of the preset's message ids names; null: reported, but not a secret. */
export const presetMessageKinds: Readonly<Record<string, RedactionKind | null>> = {
  AWSSecretAccessKey: 'aws_secret_key',
  AWSAccessKeyID: 'aws_access_key',
  AWSAccountID: null, // an account number identifies, it does not authenticate
  PrivateKey: 'private_key',
  PrivateKeyP12: 'private_key',
  PrivateKeyJSON: 'private_key',
  PackageJSON_xOauthToken: 'github_token',
  Npmrc_authToken: 'npm_token',
  NPM_ACCESS_TOKEN: 'npm_token',
  SLACK_TOKEN: 'slack_token',
  IncomingWebhook: 'slack_webhook',
  BasicAuth: 'password',
  MongoDBConnection: 'password',
  MySQLConnection: 'password',
  PostgreSQLConnection: 'password',
  OPENAI_TOKEN: 'openai_key',
  ANTHROPIC_API_KEY: 'anthropic_key',
  GROQ_API_KEY: 'groq_key',
  HUGGINGFACE_USER_ACCESS_TOKEN: 'huggingface_token',
  LINEAR_API_TOKEN: 'linear_key',
  NOTION_INTEGRATION_TOKEN: 'notion_token',
  SENDGRID_KEY: 'sendgrid_key',
  SHOPIFY_KEY: 'shopify_token',
  GITHUB_TOKEN: 'github_token',
  GITLAB_PERSONAL_ACCESS_TOKEN: 'gitlab_token',
  GRAFANA_CLOUD_API_TOKEN: 'grafana_token',
  GRAFANA_SERVICE_ACCOUNT_TOKEN: 'grafana_token',
  OPS_TOKEN: 'onepassword_token',
  HASHICORP_VAULT_SERVICE_TOKEN: 'vault_token',
  HASHICORP_VAULT_BATCH_TOKEN: 'vault_token',
  HASHICORP_VAULT_RECOVERY_TOKEN: 'vault_token',
  VERCEL_PERSONAL_ACCESS_TOKEN: 'vercel_token',
  VERCEL_INTEGRATION_TOKEN: 'vercel_token',
  VERCEL_APP_ACCESS_TOKEN: 'vercel_token',
  VERCEL_APP_REFRESH_TOKEN: 'vercel_token',
  VERCEL_AI_GATEWAY_API_KEY: 'vercel_token',
  DATABRICKS_PERSONAL_ACCESS_TOKEN: 'databricks_token',
  DOCKER_PERSONAL_ACCESS_TOKEN: 'docker_token',
  FIGMA_PERSONAL_ACCESS_TOKEN: 'figma_token',
};

/** In a reported URL, the password of its userinfo: only that part is redacted. */
const URL_PASSWORD = /^[a-z][a-z0-9+.:-]*:\/\/[^\s:/@]*:(?<secret>[^\s/]+)@/di;

/** The scan in progress (calls are synchronous, so one at a time). */
let scan: { text: string; spans: SecretSpan[] } | undefined;

const context: SecretLintRuleContext = {
  sharedOptions: {},
  createTranslator: () => (messageId, data) => ({
    message: String(messageId),
    messageId: String(messageId),
    data,
  }),
  report({ message, range }) {
    if (!scan) return;
    // A message id this table does not know (a newer preset) still redacts, as a generic secret.
    const known = presetMessageKinds[message.messageId];
    const kind = known === undefined ? 'secret' : known;
    if (!kind) return;
    const [start, end] = locateValue(scan.text, range, message.data);
    if (kind !== 'password') return void scan.spans.push({ start, end, kind });
    const password = URL_PASSWORD.exec(scan.text.slice(start, end))?.indices?.groups?.secret;
    if (password) scan.spans.push({ start: start + password[0], end: start + password[1], kind });
  },
  // Text in a chat must not be able to switch redaction off with a `secretlint-disable` comment.
  ignore() {},
};

/**
 * The found value is the report's message data; its range is trusted only when it holds exactly that
 * value (the AWS secret key rule reports the key name's start with the value's length).
 */
function locateValue(text: string, range: readonly [number, number], data: unknown): [number, number] {
  const [start, end] = range;
  const value = Object.values(data ?? {}).find((v): v is string => typeof v === 'string' && v !== '');
  if (!value || text.slice(start, end) === value) return [start, end];
  const at = text.indexOf(value, start);
  return at < 0 ? [start, end] : [at, at + value.length];
}

/** The preset's comment filter: it only ignores reports (`secretlint-disable`), so it is not run. */
export const COMMENT_FILTER = '@secretlint/secretlint-rule-filter-comments';

/**
 * What a text must contain for a rule of the preset to report anything in it, tested on the text
 * (and its lower case, for the rules whose patterns ignore case) before the rule runs: every
 * pattern of the rule needs it, and the rule reports only what its patterns match. A rule without
 * a gate here (gcp: it reads only `.json` and `.p12` files; a newer preset's rule) runs on every
 * text. Running all the scanners costs ~20 µs a chat line, the gates well under 1.
 * test/unit/redaction.test.ts holds the gated and ungated scans equal.
 */
const presetGates: Readonly<Record<string, (text: string, lower: string) => boolean>> = {
  // The secret access key pattern needs SECRET/secret/Secret (the id rules are off by default).
  '@secretlint/secretlint-rule-aws': (_t, lower) => lower.includes('secret'),
  '@secretlint/secretlint-rule-npm': (t) =>
    t.includes('npm_') || t.includes('_authToken') || t.includes('x-oauth-basic'),
  '@secretlint/secretlint-rule-slack': (t, lower) =>
    t.includes('xox') || t.includes('xapp-') || lower.includes('hooks.slack.com'),
  '@secretlint/secretlint-rule-basicauth': (t) => t.includes('://'),
  '@secretlint/secretlint-rule-openai': (t) => t.includes('sk-'),
  '@secretlint/secretlint-rule-anthropic': (t) => t.includes('sk-ant-api0'),
  '@secretlint/secretlint-rule-groq': (t) => t.includes('gsk_'),
  '@secretlint/secretlint-rule-huggingface': (t) => t.includes('hf_'),
  '@secretlint/secretlint-rule-linear': (t) => t.includes('lin_api_'),
  '@secretlint/secretlint-rule-notion': (t) => t.includes('ntn_'),
  '@secretlint/secretlint-rule-privatekey': (t) => t.includes('-----BEGIN'),
  '@secretlint/secretlint-rule-sendgrid': (t) => t.includes('SG.'),
  '@secretlint/secretlint-rule-shopify': (t) => t.includes('shp'),
  '@secretlint/secretlint-rule-github': (t) => /gh[pousr]_|github_pat_/.test(t),
  '@secretlint/secretlint-rule-gitlab': (t) => t.includes('glpat-'),
  '@secretlint/secretlint-rule-grafana': (t) => t.includes('glc_') || t.includes('glsa_'),
  '@secretlint/secretlint-rule-1password': (t) => t.includes('ops_ey'),
  '@secretlint/secretlint-rule-database-connection-string': (_t, lower) =>
    lower.includes('mongodb') || lower.includes('mysql') || lower.includes('postgres'),
  '@secretlint/secretlint-rule-hashicorp-vault': (t) => /hv[sbr]\./.test(t),
  '@secretlint/secretlint-rule-vercel': (t) => /vc[pickr]_/.test(t),
  '@secretlint/secretlint-rule-databricks': (t) => t.includes('dapi'),
  '@secretlint/secretlint-rule-docker': (t) => t.includes('dckr_pat_'),
  '@secretlint/secretlint-rule-figma': (t) => t.includes('figd_'),
};

const always = () => true;

/** The preset's scanners, created once, each with its gate. */
const scanners = rules
  .filter((rule) => rule.meta.id !== COMMENT_FILTER)
  .map((rule) => ({ gate: presetGates[rule.meta.id] ?? always, scanner: rule.create(context, {}) }));

/**
 * Every secret the preset's scanners report in `text`, as spans (`gated: false`: every scanner run,
 * for tests; `lower`: the text's lower case, when the caller has it).
 */
export function findPresetSecrets(
  text: string,
  options: { gated?: boolean; lower?: string } = {},
): SecretSpan[] {
  const gated = options.gated !== false;
  const lower = gated ? (options.lower ?? text.toLowerCase()) : '';
  // The scanners read only these fields (file-type checks see a text without a path or extension).
  const source = {
    content: text,
    hasBOM: false,
    filePath: undefined,
    physicalFilePath: undefined,
    ext: '',
    contentType: 'text',
  } as unknown as SecretLintSourceCode;
  scan = { text, spans: [] };
  try {
    // Synchronous for text: only the GCP rule's `.p12` branch is async, and it needs a file path.
    for (const { gate, scanner } of scanners) if (!gated || gate(text, lower)) void scanner.file?.(source);
    return scan.spans;
  } finally {
    scan = undefined;
  }
}
