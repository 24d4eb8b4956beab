// The version of the HTTP API, as the OpenAPI document and the MCP server announce it: the
// package's own version (package.json sits two folders up from both src/shared and dist/shared).
import { readFileSync } from 'node:fs';

export const API_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
