// Public surface of @auction-ops/rest-engine.
export { createRestEngine, type RestEngine, type RestEngineOptions, type TxEnd } from './engine.js';
export type { EngineRequest } from './engine-request.js';
export type { EngineResponse } from './respond.js';
export { type ErrorVerbosity, RestError, errors, sqlStateToStatus } from './errors.js';
export { quoteIdent } from './ident.js';
export { parseQuery } from './parse/query-parser.js';
export { parseSelect, printSelect } from './parse/select-parser.js';
export { loadSchemaCache } from './schema-cache/schema-loader.js';
export type { SchemaCache } from './schema-cache/types.js';
export { CONTEXT_SQL } from './execute.js';
// The stages, for callers that run them separately (tools, benchmarks, other adapters).
export { parse, type ApiRequest, type RawRequest } from './parse/request-parser.js';
export { plan } from './plan/planner.js';
export type { PlannerOptions } from './plan/plan-step.js';
export type { Plan } from './plan/types.js';
export { compile, type CompiledRequest } from './compile/statement-compiler.js';
export { executePlan, type PlanExecution, StatementBudget, type TxContext } from './execute.js';
export { respond, type MainResult } from './respond.js';
export { generateTypeScriptTypes, type TypeGenOptions } from './typegen/typescript-generator.js';
// HTTP adapters and authentication, for hosts that serve the engine.
export { createFetchHandler, type FetchContext, type FetchHandler } from './adapters/fetch-handler.js';
export { createNodeHandler, type NodeHandler } from './adapters/node-handler.js';
export { lingerOnEarlyClose } from './adapters/lingering-close.js';
export type { AdapterOptions, Authenticate, Claims, Identity } from './adapters/adapter-options.js';
export { BodyTooLargeError, type BodyInput, type HeadersInput, normalizeHeaders } from './request-input.js';
export { createJwtAuthenticator, type JwtOptions } from './auth/jwt-authenticator.js';
