// Lint configuration: typescript-eslint's recommended rules over the whole project.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinRules } from 'eslint/use-at-your-own-risk';

const MODULES = ['agents', 'channels', 'compaction', 'context', 'lanes', 'mcp', 'memory', 'platforms'].concat(
  ['retention', 'sessions', 'tenants', 'tools'],
);

/** A layer rule: `files` import nothing matching `forbidden`. */
const layer = (files, forbidden, message, ignores = []) => ({
  files,
  ignores,
  rules: {
    '@typescript-eslint/no-restricted-imports': ['error', { patterns: [{ group: forbidden, message }] }],
  },
});

/** Whether a function is a factory: its body's own return gives a function, or an object literal
 * holding at least one (a method, a function value, or the name of a function declared in the body).
 * A factory is a module's closure, not a step: each function inside it is measured on its own. */
function isFactory(fn) {
  const body = fn.body?.type === 'BlockStatement' ? fn.body.body : [];
  const returned = body.findLast((statement) => statement.type === 'ReturnStatement')?.argument;
  const isFunction = (node) =>
    node?.type === 'ArrowFunctionExpression' || node?.type === 'FunctionExpression';
  if (isFunction(returned)) return true;
  if (returned?.type !== 'ObjectExpression') return false;
  const inner = new Set();
  for (const statement of body) {
    if (statement.type === 'FunctionDeclaration') inner.add(statement.id.name);
    if (statement.type === 'VariableDeclaration')
      for (const d of statement.declarations)
        if (d.id.type === 'Identifier' && isFunction(d.init)) inner.add(d.id.name);
  }
  return returned.properties.some(
    (p) =>
      p.type === 'Property' &&
      (p.method || isFunction(p.value) || (p.value.type === 'Identifier' && inner.has(p.value.name))),
  );
}

/** ESLint's max-lines-per-function, except that a factory's closure is not counted as one function. */
const maxLinesPerFunction = {
  meta: builtinRules.get('max-lines-per-function').meta,
  create(context) {
    const report = (descriptor) => {
      if (!isFactory(descriptor.node)) context.report(descriptor);
    };
    return builtinRules
      .get('max-lines-per-function')
      .create(Object.create(context, { report: { value: report } }));
  },
};

export default tseslint.config(
  {
    ignores: [
      'scratch/',
      'node_modules/',
      'data/',
      'drizzle/',
      'openapi/',
      'client/src/schema.d.ts',
      'coverage/',
      'dist/',
      'client/dist/',
      'test-artifacts/',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['scripts/**', 'bench/**', 'examples/**'],
    rules: { 'no-console': 'off' },
  },
  // A function reads as one step: at most 120 lines of code (a longer one is split into named steps).
  // Route registration lists its routes in one function; a factory's closure counts its functions one
  // by one (isFactory). Tests, benches and scripts are not held to it.
  {
    files: ['src/**/*.ts', 'src/**/*.js', 'client/src/**/*.ts'],
    ignores: ['src/**/*.routes.ts'],
    plugins: { house: { rules: { 'max-lines-per-function': maxLinesPerFunction } } },
    rules: {
      'house/max-lines-per-function': ['error', { max: 120, skipBlankLines: true, skipComments: true }],
    },
  },
  // The inspector page's modules run in the browser (served as they are, no build step).
  {
    files: ['src/inspector/static/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'document',
          'window',
          'fetch',
          'sessionStorage',
          'console',
          'location',
          'history',
          'URLSearchParams',
          'CSS',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  // Boundaries (docs/architecture.md): SQL only in repositories and src/db; routes never reach a
  // repository; core/ and src/shared/ are pure (no database, locks, services, HTTP or clients).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.repository.ts', 'src/db/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'drizzle-orm', message: 'SQL belongs in a *.repository.ts', allowTypeImports: true },
            { name: 'postgres', message: 'SQL belongs in a *.repository.ts', allowTypeImports: true },
          ],
          patterns: [
            {
              group: ['**/db/schema.js'],
              message: 'tables are queried in a *.repository.ts',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  // Idempotency-Key is read and its replay header written in one place (src/http/idempotency/).
  {
    files: ['src/**/*.ts'],
    ignores: ['src/http/idempotency/**', 'src/http/idempotency-header.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        ...['idempotency-key', 'idempotent-replayed'].map((name) => ({
          selector: `Literal[value='${name}']`,
          message:
            'use idempotencyKeyOf / replyIdempotent / sendIdempotent (src/http/idempotency/idempotent-reply.ts)',
        })),
      ],
    },
  },
  {
    files: ['src/**/*.routes.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['drizzle-orm', 'postgres'].map((name) => ({
            name,
            message: 'routes call services',
            allowTypeImports: true,
          })),
          patterns: [
            {
              group: ['**/*.repository.js'],
              message: 'routes call services, not repositories',
              allowTypeImports: true,
            },
            { group: ['**/db/schema.js'], message: 'routes call services', allowTypeImports: true },
          ],
        },
      ],
    },
  },
  {
    files: ['src/modules/*/core/**/*.ts', 'src/shared/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['fastify', 'ioredis', 'postgres', 'pg-boss', 'drizzle-orm', '@electric-sql/pglite'].map(
            (name) => ({
              name,
              message: 'core/ and shared/ are pure: no I/O',
              allowTypeImports: true,
            }),
          ),
          patterns: [
            {
              group: [
                '**/db/*',
                '**/coord/*',
                '**/http/*',
                '**/*.service.js',
                '**/*.repository.js',
                '**/*.routes.js',
                '**/*.module.js',
              ],
              message: 'core/ and shared/ are pure: no I/O',
              allowTypeImports: true,
            },
            {
              group: ['@anthropic-ai/sdk'],
              message: 'core/ and shared/ are pure: no clients',
              allowTypeImports: true,
            },
          ],
        },
      ],
    },
  },
  // Lane state has one home: only lanes.repository.ts queries lane_states (other statements join it
  // through the fragment it exports).
  {
    files: ['src/**/*.repository.ts'],
    ignores: ['src/modules/lanes/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/db/schema.js'],
              importNames: ['laneStates'],
              message: 'lane_states is queried in src/modules/lanes/lanes.repository.ts',
            },
          ],
        },
      ],
    },
  },
  // Layers (docs/architecture.md), type imports included: the platform adapters sit below the
  // modules; lanes/ is the ground floor of the modules (it imports none of them); sessions/ and
  // compaction/ sit under context/; nothing under src/modules reaches back to the app.
  layer(['src/platforms/**/*.ts'], ['**/modules/**', '**/app.js'], 'platform adapters sit below the modules'),
  layer(
    ['src/modules/lanes/**/*.ts'],
    [...MODULES.filter((m) => m !== 'lanes').map((m) => `**/${m}/**`), '**/app.js'],
    'lanes/ is the ground floor of the modules: it imports none of them',
  ),
  layer(
    ['src/modules/sessions/**/*.ts', 'src/modules/compaction/**/*.ts'],
    ['**/context/**', '**/app.js'],
    'sessions/ and compaction/ sit under context/: it is wired in from services.ts',
  ),
  layer(['src/modules/**/*.ts'], ['**/app.js'], 'modules do not import the app', [
    'src/modules/lanes/**',
    'src/modules/sessions/**',
    'src/modules/compaction/**',
  ]),
);
