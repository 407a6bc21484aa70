// What an OAuth client may be registered with, checked in GoTrue's words: redirect URIs, grant types, name and URLs,
// scopes (also those an authorization request asks for), and the token endpoint's auth method with the client type
// it implies.
import { authErrors } from './errors.js';

export type ClientType = 'public' | 'confidential';
export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

/** GoTrue's scopes (no `openid`: this server issues no ID tokens). */
export const SUPPORTED_SCOPES = ['email', 'profile', 'phone', 'offline_access'] as const;
export const GRANT_TYPES = ['authorization_code', 'refresh_token'];
const AUTH_METHODS: TokenEndpointAuthMethod[] = ['none', 'client_secret_basic', 'client_secret_post'];

/** The scopes of a space-separated string, each one we support, or a validation error naming the first other. */
export function parseScopes(scope: string): string[] {
  const scopes = scope.split(' ').filter(Boolean);
  const unsupported = scopes.find((s) => !(SUPPORTED_SCOPES as readonly string[]).includes(s));
  if (unsupported) throw new Error(`unsupported scope: ${unsupported}`);
  return scopes;
}

function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string' || !uri) return 'redirect URI cannot be empty';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'invalid URL format';
  }
  const scheme = url.protocol.slice(0, -1).toLowerCase();
  if (['javascript', 'data', 'file', 'vbscript', 'about', 'blob'].includes(scheme)) {
    return `scheme '${scheme}' is not allowed for security reasons`;
  }
  if (!url.host) return 'must have scheme and host';
  if (scheme === 'http' && !['localhost', '127.0.0.1', '[::1]'].includes(url.hostname)) {
    return 'HTTP scheme only allowed for localhost';
  }
  if (url.hash || uri.includes('#')) return 'fragment not allowed in redirect URI';
  return undefined;
}

export function redirectUris(value: unknown): string[] {
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
    throw authErrors.validation('redirect_uris is required');
  }
  if (!Array.isArray(value)) throw authErrors.validation('redirect_uris must be an array of strings');
  if (value.length > 10) throw authErrors.validation('redirect_uris cannot exceed 10 items');
  for (const uri of value) {
    const problem = redirectUriProblem(uri);
    if (problem) throw authErrors.validation(`invalid redirect_uri '${String(uri)}': ${problem}`);
  }
  return value as string[];
}

export function grantTypes(value: unknown): string[] {
  if (!Array.isArray(value) || value.length === 0) throw authErrors.validation('grant_types cannot be empty');
  if (!value.every((g) => GRANT_TYPES.includes(g))) {
    throw authErrors.validation("grant_types must only contain 'authorization_code' and/or 'refresh_token'");
  }
  return [...new Set(value as string[])];
}

export function optionalText(body: Record<string, unknown>, name: string, max: number): string | undefined {
  const value = body[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw authErrors.validation(`${name} must be a string`);
  if (value.length > max) throw authErrors.validation(`${name} cannot exceed ${max} characters`);
  return value;
}

export function optionalUrl(body: Record<string, unknown>, name: string): string | undefined {
  const value = optionalText(body, name, 2048);
  if (!value) return value;
  if (!URL.canParse(value)) throw authErrors.validation(`${name} must be a valid URL`);
  return value;
}

export function optionalScope(body: Record<string, unknown>): string | undefined {
  const value = optionalText(body, 'scope', 1024);
  if (value === undefined) return undefined;
  try {
    return parseScopes(value).join(' ');
  } catch (error) {
    throw authErrors.validation((error as Error).message);
  }
}

export function authMethod(value: unknown): TokenEndpointAuthMethod | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (!AUTH_METHODS.includes(value as TokenEndpointAuthMethod)) {
    throw authErrors.validation(`token_endpoint_auth_method must be one of: [${AUTH_METHODS.join(' ')}]`);
  }
  return value as TokenEndpointAuthMethod;
}

export const typeOfMethod = (method: TokenEndpointAuthMethod): ClientType =>
  method === 'none' ? 'public' : 'confidential';

/** client_type and token_endpoint_auth_method as GoTrue settles them: explicit type, else the method's, else confidential. */
export function clientTypeAndMethod(body: Record<string, unknown>): {
  type: ClientType;
  method: TokenEndpointAuthMethod;
} {
  const method = authMethod(body.token_endpoint_auth_method);
  const given = body.client_type;
  if (given !== undefined && given !== null && given !== '' && given !== 'public' && given !== 'confidential') {
    throw authErrors.validation("client_type must be 'public' or 'confidential'");
  }
  const type = (given || (method ? typeOfMethod(method) : 'confidential')) as ClientType;
  if (method && typeOfMethod(method) !== type) {
    throw authErrors.validation(
      `client_type '${type}' is inconsistent with token_endpoint_auth_method '${method}' (expected client_type '${typeOfMethod(method)}')`,
    );
  }
  return { type, method: method ?? (type === 'public' ? 'none' : 'client_secret_basic') };
}
