// `npm run openapi`: writes openapi/openapi.json from the routes, and the typed client's
// client/src/schema.d.ts from that document.
import { mkdirSync, writeFileSync } from 'node:fs';
import { renderClientSchema } from '../client/scripts/render-schema.js';
import { renderOpenApi } from '../src/http/openapi.js';

const document = await renderOpenApi();
mkdirSync('openapi', { recursive: true });
writeFileSync('openapi/openapi.json', document);
console.log('wrote openapi/openapi.json');
writeFileSync('client/src/schema.d.ts', await renderClientSchema(document));
console.log('wrote client/src/schema.d.ts');
