// @contextd/client: a typed client for contextd (docs/api.md, "Typed client").
export * from './client.js';
export * from './errors.js';
export * from './loop.js';
export type { components, operations, paths } from './schema.js';
