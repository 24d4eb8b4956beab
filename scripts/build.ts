// The production build: TypeScript compiled to JavaScript (tsconfig.build.json) and the
// inspector's static files copied beside it. `npm run build` writes dist/; the image's build stage
// runs it, and test/integration/image-build.test.ts runs it into a temporary directory and starts
// the result with plain node.
//   tsx scripts/build.ts [OUT_DIR]
import { execFileSync } from 'node:child_process';
import { cpSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const outDir = resolve(process.argv[2] ?? join(root, 'dist'));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json'), '--outDir', outDir], {
  cwd: root,
  stdio: 'inherit',
});
cpSync(join(root, 'src/inspector/static'), join(outDir, 'inspector/static'), { recursive: true });
