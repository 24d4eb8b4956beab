// A deterministic corpus for redaction: synthetic secrets in each provider's documented format (never
// real ones), set in chat-like sentences, and clean look-alikes that must survive untouched.
import type { RedactionKind } from '../../src/modules/memory/core/redaction.js';

/** mulberry32: a small seeded generator, so the corpus is the same on every run. */
export class SeededRandom {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0;
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(below: number): number {
    return Math.floor(this.next() * below);
  }
  between(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chars(alphabet: string, length: number): string {
    let out = '';
    for (let i = 0; i < length; i += 1) out += alphabet[this.int(alphabet.length)];
    return out;
  }
}

const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const DIGITS = '0123456789';
const HEX = '0123456789abcdef';
const ALNUM = LOWER + UPPER + DIGITS;
const BASE64 = ALNUM + '+/';
const URLSAFE = ALNUM + '_-';

/** A case: the text is `before + secret + after`, and only `secret` may be replaced. */
export interface PositiveCase {
  kind: RedactionKind;
  before: string;
  secret: string;
  after: string;
}

/** At least one character of each class, so a generated key never looks like a plain word. */
function mixed(rng: SeededRandom, alphabet: string, length: number): string {
  const head = rng.pick([...LOWER]) + rng.pick([...UPPER]) + rng.pick([...DIGITS]);
  return (head + rng.chars(alphabet, length - 3))
    .split('')
    .sort(() => rng.next() - 0.5)
    .join('');
}

function base64url(text: string): string {
  return btoa(text).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
}

/** A Luhn-valid card number with the given prefix and length. */
function cardNumber(rng: SeededRandom, prefix: string, length: number): string {
  let digits = prefix + rng.chars(DIGITS, length - prefix.length - 1);
  for (let check = 0; check < 10; check += 1) {
    const candidate = digits + String(check);
    let sum = 0;
    for (let i = 0; i < candidate.length; i += 1) {
      let d = Number(candidate[candidate.length - 1 - i]);
      if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
      sum += d;
    }
    if (sum % 10 === 0) {
      digits = candidate;
      break;
    }
  }
  return digits;
}

/** A 1Password service account token's JSON, padded so its base64 ends in `fQ==` like real ones. */
function serviceAccountJson(r: SeededRandom): string {
  let json = JSON.stringify({
    email: `${r.chars(LOWER + DIGITS, 13)}@1passwordserviceaccounts.lcl`,
    muk: { alg: 'A256GCM', k: r.chars(URLSAFE, 43), kty: 'oct', kid: 'mp' },
    secretKey: `A3-${r.chars(UPPER + DIGITS, 6)}-${r.chars(UPPER + DIGITS, 6)}-${r.chars(UPPER + DIGITS, 5)}`,
    srpX: r.chars(HEX, 64),
    signInAddress: 'acme.1password.com',
  });
  while (json.length % 3 !== 1) json = json.replace('{', '{ ');
  return json;
}

function pem(rng: SeededRandom, label: string, body: string): string {
  const lines = body.match(/.{1,64}/g)!.join('\n');
  return `-----BEGIN ${label}PRIVATE KEY-----\n${lines}\n-----END ${label}PRIVATE KEY-----`;
}

/** A password with letters, digits and symbols that end inside the word (never trailing punctuation). */
function password(rng: SeededRandom): string {
  const symbols = '!#$%&*+-_~^@?';
  return mixed(rng, ALNUM, rng.between(6, 12)) + rng.chars(symbols, rng.between(1, 2)) + rng.chars(DIGITS, 1);
}

/** Generators of the secret itself, and sentence frames `[before, after]` it is placed in. */
type Secret = (rng: SeededRandom) => string;
type Frame = (rng: SeededRandom) => [string, string];

const frames = (...pairs: [string, string][]): Frame[] => pairs.map((pair) => () => pair);

const kinds: { kind: RedactionKind; secrets: Secret[]; frames: Frame[] }[] = [
  {
    kind: 'aws_secret_key',
    secrets: [(r) => mixed(r, BASE64, 40)],
    frames: frames(
      ['AWS_SECRET_ACCESS_KEY=', '\nAWS_REGION=eu-west-1'],
      ['aws_secret_access_key = ', ''],
      ['"SecretAccessKey": "', '",'],
      ['the aws secret key is ', ' (rotate it monthly)'],
      ['AWS creds for staging: secret ', ', region us-east-1'],
      // No "aws" anywhere: the key's shape alone.
      ['creds for the uploader: ', ' (rotate monthly)'],
      ['secret access key ', ''],
      ['paste: `', '`'],
    ),
  },
  {
    kind: 'private_key',
    secrets: [
      (r) => pem(r, 'RSA ', 'MIIE' + r.chars(BASE64, 400)),
      (r) => pem(r, '', 'MIIC' + r.chars(BASE64, 200)),
      (r) => pem(r, 'EC ', 'MHcC' + r.chars(BASE64, 160)),
      (r) => pem(r, 'OPENSSH ', 'b3BlbnNzaC1rZXktdjEAAAAA' + r.chars(BASE64, 300)),
    ],
    frames: frames(['here is the deploy key:\n', '\nthanks'], ['key file:\n', ''], ['```\n', '\n```']),
  },
  {
    kind: 'npm_token',
    secrets: [(r) => 'npm_' + mixed(r, ALNUM, 36)],
    frames: frames(
      ['//registry.npmjs.org/:_authToken=', ''],
      ['publish with ', ' please'],
      ['NPM token ', '.'],
    ),
  },
  {
    kind: 'slack_token',
    secrets: [
      (r) => `xoxb-${r.chars(DIGITS, 12)}-${r.chars(DIGITS, 13)}-${mixed(r, ALNUM, 24)}`,
      (r) => `xoxp-${r.chars(DIGITS, 12)}-${r.chars(DIGITS, 12)}-${r.chars(DIGITS, 13)}-${r.chars(HEX, 32)}`,
      (r) => `xapp-1-A${r.chars(UPPER + DIGITS, 10)}-${r.chars(DIGITS, 13)}-${r.chars(HEX, 64)}`,
    ],
    frames: frames(['SLACK_BOT_TOKEN=', ''], ['the bot uses ', ' now'], ['token `', '`']),
  },
  {
    kind: 'slack_webhook',
    secrets: [
      (r) =>
        `https://hooks.slack.com/services/T${r.chars(UPPER + DIGITS, 8)}/B${r.chars(UPPER + DIGITS, 10)}/${mixed(r, ALNUM, 24)}`,
    ],
    frames: frames(
      ['post alerts to ', ' please'],
      ['webhook: ', ''],
      ['curl -X POST ', ' -d \'{"text":"hi"}\''],
    ),
  },
  {
    kind: 'openai_key',
    secrets: [
      (r) => `sk-proj-${r.chars(URLSAFE, 74)}T3BlbkFJ${r.chars(URLSAFE, 74)}`,
      (r) => `sk-${mixed(r, ALNUM, 20)}T3BlbkFJ${mixed(r, ALNUM, 20)}`,
      (r) => `sk-svcacct-${r.chars(URLSAFE, 58)}T3BlbkFJ${r.chars(URLSAFE, 58)}`,
    ],
    frames: frames(['OPENAI_API_KEY=', ''], ['use ', ' for the eval run'], ['my key is ', ', keep it safe']),
  },
  {
    kind: 'anthropic_key',
    secrets: [
      (r) => `sk-ant-api03-${mixed(r, URLSAFE, 93)}AA`,
      (r) => `sk-ant-admin01-${mixed(r, URLSAFE, 93)}AA`,
    ],
    frames: frames(['ANTHROPIC_API_KEY=', ''], ['Deploy key is ', ' for prod'], ['x-api-key: ', '\n']),
  },
  {
    kind: 'groq_key',
    secrets: [(r) => 'gsk_' + mixed(r, ALNUM, 52)],
    frames: frames(['GROQ_API_KEY=', ''], ['groq key ', ' works']),
  },
  {
    kind: 'huggingface_token',
    secrets: [(r) => 'hf_' + r.chars(LOWER + UPPER, 34)],
    frames: frames(['HF_TOKEN=', ''], ['login with ', ' then pull the model']),
  },
  {
    kind: 'linear_key',
    secrets: [(r) => 'lin_api_' + mixed(r, ALNUM, 40)],
    frames: frames(['LINEAR_API_KEY=', ''], ['the linear key ', ' is for the bot']),
  },
  {
    kind: 'notion_token',
    secrets: [(r) => `ntn_${r.chars(DIGITS, 11)}${mixed(r, ALNUM, 35)}`],
    frames: frames(['NOTION_TOKEN=', ''], ['integration secret ', ' (workspace Acme)']),
  },
  {
    kind: 'sendgrid_key',
    secrets: [(r) => `SG.${mixed(r, ALNUM, 22)}.${mixed(r, ALNUM, 43)}`],
    frames: frames(['SENDGRID_API_KEY=', ''], ['mail key ', ' for notifications']),
  },
  {
    kind: 'shopify_token',
    secrets: [(r) => r.pick(['shpat_', 'shpss_', 'shpca_']) + r.chars(HEX, 32)],
    frames: frames(['SHOPIFY_ACCESS_TOKEN=', ''], ['admin API token ', ' for the store']),
  },
  {
    kind: 'github_token',
    secrets: [
      (r) => r.pick(['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_']) + mixed(r, ALNUM, 36),
      (r) => `github_pat_11${r.chars(UPPER + DIGITS, 20)}_${mixed(r, ALNUM, 59)}`,
    ],
    frames: frames(['GITHUB_TOKEN=', ''], ['git clone with ', ' as the password'], ['token ', ' here']),
  },
  {
    kind: 'gitlab_token',
    secrets: [(r) => 'glpat-' + mixed(r, URLSAFE, 20)],
    frames: frames(['CI_JOB_TOKEN=', ''], ['gitlab PAT ', ' expires friday']),
  },
  {
    kind: 'grafana_token',
    secrets: [
      (r) => `glsa_${mixed(r, ALNUM, 32)}_${r.chars(HEX, 8)}`,
      (r) => 'glc_' + mixed(r, ALNUM, 60) + '==',
    ],
    frames: frames(['GRAFANA_TOKEN=', ''], ['grafana service account ', ' for dashboards']),
  },
  {
    kind: 'onepassword_token',
    secrets: [(r) => 'ops_' + btoa(serviceAccountJson(r))],
    frames: frames(['OP_SERVICE_ACCOUNT_TOKEN=', ''], ['1password token ', ' for CI']),
  },
  {
    kind: 'vault_token',
    secrets: [(r) => 'hvs.' + mixed(r, URLSAFE, 95), (r) => 'hvb.' + mixed(r, URLSAFE, 150)],
    frames: frames(['VAULT_TOKEN=', ''], ['vault login ', ' && vault read secret/app']),
  },
  {
    kind: 'vercel_token',
    secrets: [(r) => r.pick(['vcp_', 'vci_', 'vca_', 'vcr_', 'vck_']) + mixed(r, ALNUM, 24)],
    frames: frames(['VERCEL_TOKEN=', ''], ['vercel deploy --token ', ' --prod']),
  },
  {
    kind: 'databricks_token',
    secrets: [(r) => 'dapi' + r.chars(HEX, 32)],
    frames: frames(['DATABRICKS_TOKEN=', ''], ['workspace token ', ' for jobs']),
  },
  {
    kind: 'docker_token',
    secrets: [(r) => 'dckr_pat_' + mixed(r, URLSAFE, 27)],
    frames: frames(['docker login -u acme -p ', ''], ['hub PAT ', ' for pushes']),
  },
  {
    kind: 'figma_token',
    secrets: [(r) => 'figd_' + mixed(r, URLSAFE, 40)],
    frames: frames(['FIGMA_TOKEN=', ''], ['figma personal token ', ' for exports']),
  },
  {
    kind: 'aws_access_key',
    secrets: [(r) => r.pick(['AKIA', 'ASIA', 'AROA', 'AIDA']) + r.chars(UPPER + DIGITS, 16)],
    frames: frames(['AWS_ACCESS_KEY_ID=', ''], ['key id ', ' for the uploader'], ['"AccessKeyId": "', '"']),
  },
  {
    kind: 'jwt',
    secrets: [
      (r) =>
        `${base64url('{"alg":"HS256","typ":"JWT"}')}.${base64url(`{"sub":"${r.chars(DIGITS, 8)}","iat":${r.between(1_600_000_000, 1_800_000_000)}}`)}.${r.chars(URLSAFE, 43)}`,
    ],
    frames: frames(
      ['cookie session=', '; Path=/'],
      ['id_token ', ' expired'],
      ['Authorization: Bearer ', ''],
    ),
  },
  {
    kind: 'google_api_key',
    secrets: [(r) => 'AIza' + mixed(r, URLSAFE, 35)],
    frames: frames(['GOOGLE_MAPS_KEY=', ''], ['maps key ', ' for the geocoder'], ['?key=', '&q=paris']),
  },
  {
    kind: 'stripe_key',
    secrets: [(r) => r.pick(['sk_live_', 'sk_test_', 'rk_live_']) + mixed(r, ALNUM, 24)],
    frames: frames(['STRIPE_SECRET_KEY=', ''], ['stripe: ', ' (restricted)']),
  },
  {
    kind: 'telegram_bot_token',
    secrets: [(r) => `${r.between(100_000_000, 9_999_999_999)}:AA${mixed(r, URLSAFE, 33)}`],
    frames: frames(
      ['TELEGRAM_BOT_TOKEN=', ''],
      ['bot token ', ' from BotFather'],
      ['https://api.telegram.org/bot', '/getMe'],
    ),
  },
  {
    kind: 'azure_storage_key',
    secrets: [(r) => mixed(r, BASE64, 86) + '==', (r) => mixed(r, BASE64, 43) + '='],
    frames: frames(
      [
        'DefaultEndpointsProtocol=https;AccountName=acmefiles;AccountKey=',
        ';EndpointSuffix=core.windows.net',
      ],
      [
        'Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=',
        '',
      ],
    ),
  },
  {
    kind: 'basic_auth',
    secrets: [(r) => btoa(`${r.pick(['admin', 'deploy', 'ci-bot', 'alice'])}:${password(r)}`)],
    frames: frames(
      ['Authorization: Basic ', ''],
      ['curl -H "Authorization: Basic ', '" https://api.internal'],
      ['basic ', '\n'],
    ),
  },
  {
    kind: 'bearer_token',
    secrets: [(r) => mixed(r, ALNUM + '._-', r.between(24, 48))],
    frames: frames(
      ['Authorization: Bearer ', ''],
      ['curl -H "Authorization: Bearer ', '" https://x'],
      ['bearer ', ' (expires in 1h)'],
    ),
  },
  {
    kind: 'password',
    secrets: [password],
    frames: [
      (r) => [
        `${r.pick(['redis', 'amqp', 'postgres', 'mysql', 'mongodb+srv', 'smtp', 'https'])}://${r.pick(['', 'admin', 'app_user'])}:`,
        `@${r.pick(['db', 'cache', 'broker'])}.internal:5432/app`,
      ],
      () => ['my password is ', ''],
      () => ['the wifi password is ', ' btw'],
      () => ['The new passphrase was changed to ', '.'],
      () => ['DATABASE_URL=postgres://svc:', '@10.0.0.5/prod'],
    ],
  },
  {
    kind: 'secret',
    secrets: [password],
    frames: frames(
      ['login with password=', ' please'],
      ['DB_PASSWORD=', '\nDB_HOST=db'],
      ['{"user": "bob", "password": "', '"}'],
      ["client_secret: '", "'"],
      ['api_key: ', ''],
      ['password: ', ' (temporary)'],
      ['SECRET_KEY=', '\nDEBUG=false'],
    ),
  },
  {
    kind: 'card_number',
    secrets: [
      (r) => cardNumber(r, '4', 16),
      (r) => cardNumber(r, '5' + r.between(1, 5), 16),
      (r) => cardNumber(r, r.pick(['34', '37']), 15),
      (r) => cardNumber(r, '4', 16).match(/.{4}/g)!.join(' '),
    ],
    frames: frames(['card ', ' exp 12/29'], ['pay with ', ' now'], ['cc: ', ', cvv 123']),
  },
];

/** Kinds known by where they stand (a key name, a header, a URL), not by their shape alone. */
const CONTEXTUAL: ReadonlySet<RedactionKind> = new Set([
  'azure_storage_key',
  'basic_auth',
  'bearer_token',
  'password',
  'secret',
]);

/** Frames that name nothing: a kind with a distinctive shape must be found in these too. */
const NEUTRAL: Frame[] = frames(['see ', ' above'], ['`', '`'], ['', ''], ['copied: "', '"'], ['(', ')']);

/**
 * `perKind` cases of every kind, cycling through its frames and secret formats; every third case of
 * a kind with a distinctive shape stands in a neutral frame instead.
 */
export function positiveCases(seed: number, perKind: number): PositiveCase[] {
  const rng = new SeededRandom(seed);
  return kinds.flatMap(({ kind, secrets, frames: kindFrames }) =>
    Array.from({ length: perKind }, (_, i) => {
      const neutral = !CONTEXTUAL.has(kind) && i % 3 === 2;
      const [before, after] = (neutral ? NEUTRAL[i % NEUTRAL.length]! : kindFrames[i % kindFrames.length]!)(
        rng,
      );
      return { kind, before, secret: secrets[i % secrets.length]!(rng), after };
    }),
  );
}

/** Look-alikes: text with ids, hashes, numbers, encoded data and prose that is not a secret. */
export function lookAlikes(seed: number, perFamily: number): { family: string; text: string }[] {
  const rng = new SeededRandom(seed);
  const uuid = () =>
    `${rng.chars(HEX, 8)}-${rng.chars(HEX, 4)}-4${rng.chars(HEX, 3)}-${rng.pick(['8', '9', 'a', 'b'])}${rng.chars(HEX, 3)}-${rng.chars(HEX, 12)}`;
  const families: Record<string, () => string> = {
    'git SHA': () => `fixed in commit ${rng.chars(HEX, 40)} (short ${rng.chars(HEX, 7)})`,
    UUID: () => `session ${uuid()} started for tenant ${uuid()}`,
    'order number': () =>
      `order #${rng.between(100_000, 9_999_999)} (ref ORD-${rng.between(10_000, 99_999)}) ships ${rng.pick(['today', 'monday'])}`,
    price: () =>
      `the plan costs $${rng.between(1, 2_000).toLocaleString('en-US')}.${rng.chars(DIGITS, 2)} or €${rng.between(5, 900)},${rng.chars(DIGITS, 2)} a month`,
    'phone number': () =>
      rng.pick([
        `call me at +1 (${rng.between(200, 999)}) 555-${rng.chars(DIGITS, 4)}`,
        `UK office: +44 20 ${rng.chars(DIGITS, 4)} ${rng.chars(DIGITS, 4)}`,
        `mobile 06 ${rng.chars(DIGITS, 2)} ${rng.chars(DIGITS, 2)} ${rng.chars(DIGITS, 2)} ${rng.chars(DIGITS, 2)}`,
      ]),
    'base64 image': () =>
      `![chart](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA${rng.chars(BASE64, rng.between(200, 600))}=)`,
    'hex color': () =>
      `use #${rng.chars(HEX, 6)} for the header and #${rng.chars('ABCDEF0123456789', 3)} for links`,
    version: () =>
      `upgraded from v${rng.between(1, 9)}.${rng.between(0, 30)}.${rng.between(0, 9)} to ${rng.between(1, 9)}.${rng.between(0, 30)}.${rng.between(0, 9)}-beta.${rng.between(1, 9)}`,
    timestamp: () =>
      `at 2025-${String(rng.between(1, 12)).padStart(2, '0')}-${String(rng.between(1, 28)).padStart(2, '0')}T${String(rng.between(0, 23)).padStart(2, '0')}:${rng.between(10, 59)}:${rng.between(10, 59)}.${rng.chars(DIGITS, 3)}Z (epoch ${rng.between(1_600_000_000_000, 1_800_000_000_000)} ms)`,
    'password prose': () =>
      rng.pick([
        'I forgot my password again, can you reset it?',
        'The password reset link was sent to your email.',
        'Your password must be at least 12 characters long.',
        'Password: reset it from the settings page.',
        'the password is expired, please choose a new one',
        'Change your password every 90 days.',
        'passwords do not match',
        'I use a password manager for everything',
        'the password field is empty',
        'my password is incorrect apparently',
        'What is the password policy here?',
        'password: required',
      ]),
    'token counts': () =>
      rng.pick([
        `set max_tokens=${rng.between(256, 8192)} and temperature=0.${rng.between(0, 9)}`,
        `used ${rng.between(100, 9_999)} tokens: ${rng.between(100, 999)} input`,
        `token_count=${rng.between(10, 5_000)}`,
        `the token bucket refills every ${rng.between(1, 60)} seconds`,
      ]),
    'URL without credentials': () =>
      rng.pick([
        `see https://example.com/docs/${rng.chars(LOWER, 6)}?page=${rng.between(1, 9)}`,
        `clone ssh://git@github.com:22/acme/${rng.chars(LOWER, 5)}.git`,
        `open http://localhost:${rng.between(3000, 9000)}/health`,
        `mail ${rng.chars(LOWER, 5)}.${rng.chars(LOWER, 6)}@example.com`,
        `postgres://db.internal:5432/app${rng.between(1, 9)} is the read replica`,
      ]),
    'IP and MAC': () =>
      `host 10.${rng.between(0, 255)}.${rng.between(0, 255)}.${rng.between(0, 255)} (fe80::${rng.chars(HEX, 4)}:${rng.chars(HEX, 4)}) mac ${Array.from({ length: 6 }, () => rng.chars(HEX, 2)).join(':')}`,
    'content hash': () => `image sha256:${rng.chars(HEX, 64)} md5 ${rng.chars(HEX, 32)}`,
    'AWS identifiers': () =>
      `arn:aws:iam::${rng.chars(DIGITS, 12)}:role/${rng.pick(['Admin', 'Deploy'])} in us-east-1, instance i-0${rng.chars(HEX, 16)}, bucket s3://acme-${rng.chars(LOWER, 6)}/logs`,
    'chat ids': () =>
      `channel C${rng.chars(UPPER + DIGITS, 8)} user U${rng.chars(UPPER + DIGITS, 8)} ts ${rng.between(1_600_000_000, 1_800_000_000)}.${rng.chars(DIGITS, 6)} chat_id: ${rng.between(100_000_000, 999_999_999)}`,
    'ULID and slugs': () =>
      `job 01${rng.chars('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 24)} for pod api-${rng.chars(HEX, 10)}-${rng.chars(LOWER + DIGITS, 5)}`,
    'sk- and key-ish words': () =>
      rng.pick([
        'the sk-learn package and risk-free plans',
        'task-1234 and desk-booking',
        'the bearer of this letter',
        'Token bucket algorithm, basic plan',
        'Basic understanding of the topic is enough',
        `apikey rotation is scheduled for week ${rng.between(1, 52)}`,
        'see the secret_manager docs',
      ]),
    'code identifiers': () =>
      `call ${rng.pick(['getUserAccountSettingsHandler', 'renderPromptBudgetTable', 'ChannelIngestStateMachine'])}() from src/${rng.chars(LOWER, 6)}/index.ts:${rng.between(1, 400)}`,
    'non-Luhn numbers': () => {
      const n = cardNumber(rng, '4', 16);
      const broken = n.slice(0, 15) + String((Number(n[15]) + 1) % 10);
      return `ref ${broken} and invoice ${rng.between(1_000_000, 9_999_999)}`;
    },
    placeholders: () =>
      rng.pick([
        'Token: <redacted>',
        'set API_KEY=${API_KEY} in the env',
        'password: {{password}}',
        'password=<your-password>',
        'token: ****',
        'api_key: xxxxxxxx',
        'Authorization: Bearer <token>',
        'postgres://user:${DB_PASSWORD}@db/app',
      ]),
    'already redacted': () =>
      `token [REDACTED:${rng.pick(['jwt', 'secret', 'password', 'aws_secret_key'])}] stays and password=[REDACTED:secret]`,
    'base64 blob': () => {
      const bytes = rng.pick([12, 16, 20, 24, 32, 33, 45, 48, 64, rng.between(8, 96)]);
      return `payload ${btoa(String.fromCharCode(...Array.from({ length: bytes }, () => rng.int(256))))} end`;
    },
    'hash in base64': () =>
      `integrity "sha${rng.pick(['256', '384', '512'])}-${btoa(String.fromCharCode(...Array.from({ length: rng.pick([32, 48, 64]) }, () => rng.int(256))))}" and etag "${btoa(String.fromCharCode(...Array.from({ length: 16 }, () => rng.int(256))))}"`,
    'commit SHA': () =>
      rng.pick([
        `merged ${rng.chars(HEX, 40)} into main`,
        `git revert ${rng.chars(HEX.toUpperCase(), 40)}`,
        `Reviewed-at: ${rng.chars(HEX, 40)}\nChange-Id: I${rng.chars(HEX, 40)}`,
        `tree ${rng.chars(HEX, 40)} parent ${rng.chars(HEX, 40)}`,
      ]),
    'UUID and hex ids': () =>
      `request ${uuid().replace(/-/g, '')} trace ${rng.chars(HEX, 32)} span ${rng.chars(HEX, 16)} id ${uuid().toUpperCase()}`,
    'paths and identifiers': () =>
      rng.pick([
        `see src/${rng.pick(['channels', 'memory', 'context'])}/IngestStateMachine/tests${rng.between(1, 9)} for it`,
        `class ${rng.pick(['Abstract', 'Default', 'Cached'])}UserAccountSettingsHandlerFactory2 extends Base`,
        `run /usr/local/lib/node_modules/npm/bin/npm${rng.between(1, 9)} install`,
        `const maxRetryDelayMillisecondsForWorkers${rng.between(10, 99)} = 5000;`,
        `docs/Getting/Started/With/The/Api/v${rng.between(1, 9)}/Index page`,
      ]),
    'public key material': () =>
      `ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${rng.chars(BASE64, 43)} ${rng.pick(['ana', 'bo'])}@laptop\n-----BEGIN CERTIFICATE-----\n${Array.from({ length: rng.between(2, 5) }, () => rng.chars(BASE64, 64)).join('\n')}\n${rng.chars(BASE64, rng.between(4, 60))}==\n-----END CERTIFICATE-----`,
    'math and units': () =>
      `${rng.between(1, 999)} km at ${rng.between(1, 99)}.${rng.chars(DIGITS, 2)} km/h is ${rng.between(1, 99)}% of 3.14159; 1,234,567 units`,
  };
  return Object.entries(families).flatMap(([family, make]) =>
    Array.from({ length: perFamily }, () => ({ family, text: make() })),
  );
}
