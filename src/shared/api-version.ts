// The version of the HTTP API, as the OpenAPI document and the MCP server announce it.
export const API_VERSION = '1.0.0';
