// `npm run openapi`: writes openapi/openapi.json from the routes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { renderOpenApi } from '../src/http/openapi.js';

mkdirSync('openapi', { recursive: true });
writeFileSync('openapi/openapi.json', await renderOpenApi());
console.log('wrote openapi/openapi.json');
