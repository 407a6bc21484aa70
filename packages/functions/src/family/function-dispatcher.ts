// The /functions/v1 edge over web Request/Response: method rules, caller resolution, per-caller limits with
// their headers, body parsing and error rendering. The server's route file only hands requests to it.
import type { Claims, RateLimiter } from '@auction-ops/auth-core';
import { FunctionError, functionErrors } from '../errors.js';
import type { Caller, FunctionDefinition } from './function-definition.js';

interface DispatchInput {
  name: string;
  request: Request;
  /** Claims of the bearer token, else of the API key; absent when the bearer failed verification. */
  claims?: Claims;
  /** True when an Authorization header was sent but its token was refused (invalid or expired). */
  tokenRefused: boolean;
  clientIp: string;
}

export interface FunctionDispatcher {
  dispatch(input: DispatchInput): Promise<Response>;
  names(): string[];
}

interface DispatcherOptions {
  limiter: RateLimiter;
  /** Operator overrides of the per-caller limits, by function name. */
  limits?: Readonly<Record<string, FunctionDefinition<unknown>['limit']>>;
  onError(error: unknown, name: string): void;
  /**
   * Reads a JSON function's body as text, or null once it is over the operator's limit (413); bounded so a huge
   * body is never held whole. The default reads it all (tests).
   */
  readText?: (request: Request) => Promise<string | null>;
}

const ALLOW = 'POST, OPTIONS';
const WINDOW_SECONDS = { minute: 60, hour: 3600 } as const;

function errorResponse(error: FunctionError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error), {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });
}

export function createFunctionDispatcher<Deps>(
  definitions: readonly FunctionDefinition<Deps>[],
  deps: Deps,
  options: DispatcherOptions,
): FunctionDispatcher {
  const readText = options.readText ?? ((request: Request) => request.text());
  const byName = new Map(definitions.map((d) => [d.name, d]));
  return {
    names: () => [...byName.keys()],
    async dispatch(input) {
      const fn = byName.get(input.name);
      if (!fn) return errorResponse(functionErrors.notFound(`no function named ${input.name}`));
      const method = input.request.method;
      if (method === 'OPTIONS') return new Response(null, { status: 204, headers: { allow: ALLOW } });
      if (method !== 'POST') return errorResponse(functionErrors.methodNotAllowed(method), { allow: ALLOW });
      let caller: Caller;
      try {
        caller = resolveCaller(fn.access, input);
      } catch (error) {
        return errorResponse(error as FunctionError);
      }
      const limit = options.limits?.[fn.name] ?? fn.limit;
      const rate = await options.limiter.check(`fn:${fn.name}`, caller.userId ?? `${caller.role}:${input.clientIp}`, {
        limit: limit.max,
        windowSeconds: WINDOW_SECONDS[limit.per],
      });
      const limitHeaders = {
        'x-ratelimit-limit': String(rate.limit),
        'x-ratelimit-remaining': String(rate.remaining),
        'x-ratelimit-reset': String(rate.reset),
      };
      if (!rate.allowed) {
        const retryAfter = String(Math.max(1, rate.reset - Math.floor(Date.now() / 1000)));
        const error = functionErrors.rateLimited(`at most ${limit.max} requests per ${limit.per} for ${fn.name}`);
        return errorResponse(error, { ...limitHeaders, 'retry-after': retryAfter });
      }
      try {
        const result = await fn.handle(
          { caller, request: input.request, json: () => readJson(input.request, readText) },
          deps,
        );
        const response =
          result instanceof Response
            ? result
            : new Response(JSON.stringify(result), {
                status: 200,
                headers: { 'content-type': 'application/json; charset=utf-8' },
              });
        for (const [k, v] of Object.entries(limitHeaders)) response.headers.set(k, v);
        return response;
      } catch (error) {
        if (error instanceof FunctionError) return errorResponse(error, limitHeaders);
        options.onError(error, fn.name);
        return errorResponse(functionErrors.internal(), limitHeaders);
      }
    },
  };
}

function resolveCaller(access: FunctionDefinition<unknown>['access'], input: DispatchInput): Caller {
  const claims = input.claims;
  if (input.tokenRefused || !claims) throw functionErrors.unauthorized('the access token is invalid or expired');
  const role = claims.role;
  if (role === 'service_role') return { role, claims };
  if (role === 'authenticated' && typeof claims.sub === 'string') {
    if (access === 'service') throw functionErrors.forbidden('this function needs the service role');
    return { role, userId: claims.sub, claims };
  }
  if (access === 'any') return { role: 'anon', claims };
  throw functionErrors.unauthorized();
}

async function readJson(request: Request, readText: (r: Request) => Promise<string | null>): Promise<unknown> {
  const text = await readText(request);
  if (text === null) throw functionErrors.tooLarge('the request body is too large', 'body');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw functionErrors.invalidRequest('body', 'the request body is not valid JSON');
  }
}
