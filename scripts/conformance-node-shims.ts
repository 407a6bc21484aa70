// Stand-ins for two packages the standalone postgrest-js suite imports for old Node versions: '@supabase/node-fetch'
// (the client's fallback when there is no global fetch) and 'node-abort-controller'. Node 20+ has both built in.
export default globalThis.fetch;
export const AbortController = globalThis.AbortController;
