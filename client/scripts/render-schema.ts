// Renders client/src/schema.d.ts from the OpenAPI document with openapi-typescript. Called by
// `npm run openapi` (scripts/openapi.ts) and by the test that fails when the committed file drifts.
import openapiTS, { astToString } from 'openapi-typescript';

const banner = `// Generated from openapi/openapi.json by \`npm run openapi\` (openapi-typescript). Do not edit:
// change the routes' schemas, then regenerate.
`;

/** The TypeScript types (`paths`, `components`, `operations`) of the given OpenAPI document. */
export async function renderClientSchema(openapiJson: string): Promise<string> {
  return banner + astToString(await openapiTS(openapiJson));
}
