// The OAuth 2.1 server's client registry (GoTrue's /admin/oauth/clients): register, list, read, update, delete and
// regenerate the secret of the tools that sign users in through us, and authenticate them at the token endpoint.
// A confidential client's secret is 256 random bits shown once; only its SHA-256 is stored.
import { createHash, timingSafeEqual } from 'node:crypto';
import type postgres from 'postgres';
import { isUuid } from './auth-input.js';
import { authErrors } from './errors.js';
import {
  authMethod,
  type ClientType,
  clientTypeAndMethod,
  GRANT_TYPES,
  grantTypes,
  optionalScope,
  optionalText,
  optionalUrl,
  redirectUris,
  type TokenEndpointAuthMethod,
  typeOfMethod,
} from './oauth-client-params.js';
import { randomToken } from './opaque-token.js';

export interface OAuthClientRow {
  id: string;
  client_name: string;
  client_uri: string | null;
  logo_uri: string | null;
  redirect_uris: string[];
  grant_types: string[];
  scope: string | null;
  client_type: ClientType;
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  registration_type: 'manual' | 'dynamic';
  client_secret_hash: string | null;
  created_at: Date;
  updated_at: Date;
}

export interface OAuthClientJson {
  client_id: string;
  client_secret?: string;
  client_name: string;
  client_uri?: string;
  logo_uri?: string;
  client_type: ClientType;
  token_endpoint_auth_method: TokenEndpointAuthMethod;
  registration_type: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: string[];
  scope?: string;
  created_at: string;
  updated_at: string;
}

function clientJson(row: OAuthClientRow, secret?: string): OAuthClientJson {
  return {
    client_id: row.id,
    ...(secret ? { client_secret: secret } : {}),
    client_name: row.client_name,
    ...(row.client_uri ? { client_uri: row.client_uri } : {}),
    ...(row.logo_uri ? { logo_uri: row.logo_uri } : {}),
    client_type: row.client_type,
    token_endpoint_auth_method: row.token_endpoint_auth_method,
    registration_type: row.registration_type,
    redirect_uris: row.redirect_uris,
    grant_types: row.grant_types,
    response_types: ['code'],
    ...(row.scope ? { scope: row.scope } : {}),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');

const COLUMNS = `id, client_name, client_uri, logo_uri, redirect_uris, grant_types, scope, client_type,
  token_endpoint_auth_method, registration_type, client_secret_hash, created_at, updated_at`;

export function createOAuthClientRegistry(sql: postgres.Sql) {
  async function find(id: string): Promise<OAuthClientRow | undefined> {
    if (!isUuid(id)) return undefined;
    const [row] = await sql<OAuthClientRow[]>`select ${sql.unsafe(COLUMNS)} from auth.oauth_clients where id = ${id}`;
    return row;
  }

  /** The client of an admin path, or GoTrue's errors for a malformed or unknown id. */
  async function get(id: string): Promise<OAuthClientRow> {
    if (!isUuid(id)) throw authErrors.validation('invalid client_id format');
    const row = await find(id);
    if (!row) throw authErrors.oauthClientNotFound();
    return row;
  }

  return {
    find,

    get: async (id: string) => clientJson(await get(id)),

    async create(body: Record<string, unknown>): Promise<OAuthClientJson> {
      const uris = redirectUris(body.redirect_uris);
      const grants = body.grant_types === undefined ? GRANT_TYPES : grantTypes(body.grant_types);
      if (body.response_types !== undefined) {
        if (!Array.isArray(body.response_types) || body.response_types.some((r) => r !== 'code')) {
          throw authErrors.validation("response_types must only contain 'code'");
        }
      }
      const name = optionalText(body, 'client_name', 1024) ?? '';
      const clientUri = optionalUrl(body, 'client_uri');
      const logoUri = optionalUrl(body, 'logo_uri');
      const scope = optionalScope(body);
      const { type, method } = clientTypeAndMethod(body);
      const secret = type === 'confidential' ? randomToken() : undefined;
      const [row] = await sql<OAuthClientRow[]>`
        insert into auth.oauth_clients (client_name, client_uri, logo_uri, redirect_uris, grant_types, scope,
          client_type, token_endpoint_auth_method, client_secret_hash)
        values (${name}, ${clientUri ?? null}, ${logoUri ?? null}, ${uris}, ${grants}, ${scope ?? null}, ${type},
          ${method}, ${secret ? hashSecret(secret) : null})
        returning ${sql.unsafe(COLUMNS)}`;
      return clientJson(row!, secret);
    },

    /** Newest first, a page at a time, with the total for X-Total-Count. */
    async list(page: number, perPage: number): Promise<{ clients: OAuthClientJson[]; total: number }> {
      const rows = await sql<Array<OAuthClientRow & { total: number }>>`
        select ${sql.unsafe(COLUMNS)}, count(*) over ()::int as total from auth.oauth_clients
        order by created_at desc, id limit ${perPage} offset ${(page - 1) * perPage}`;
      const total =
        rows[0]?.total ?? (await sql<Array<{ n: number }>>`select count(*)::int as n from auth.oauth_clients`)[0]!.n;
      return { clients: rows.map((row) => clientJson(row)), total };
    },

    /** Only the fields given change; an empty update is refused, as GoTrue does. */
    async update(id: string, body: Record<string, unknown>): Promise<OAuthClientJson> {
      const current = await get(id);
      const fields = ['redirect_uris', 'grant_types', 'client_name', 'client_uri', 'logo_uri', 'scope'];
      if (![...fields, 'token_endpoint_auth_method'].some((f) => body[f] !== undefined)) {
        throw authErrors.validation('No fields provided for update');
      }
      const uris = body.redirect_uris === undefined ? current.redirect_uris : redirectUris(body.redirect_uris);
      const grants = body.grant_types === undefined ? current.grant_types : grantTypes(body.grant_types);
      const method = authMethod(body.token_endpoint_auth_method) ?? current.token_endpoint_auth_method;
      if (typeOfMethod(method) !== current.client_type) {
        throw authErrors.validation(
          `token_endpoint_auth_method '${method}' is not valid for client_type '${current.client_type}'`,
        );
      }
      const pick = <T>(value: T | undefined, fallback: T) => (value === undefined ? fallback : value);
      const [row] = await sql<OAuthClientRow[]>`
        update auth.oauth_clients set
          redirect_uris = ${uris}, grant_types = ${grants}, token_endpoint_auth_method = ${method},
          client_name = ${pick(optionalText(body, 'client_name', 1024), current.client_name)},
          client_uri = ${pick(optionalUrl(body, 'client_uri'), current.client_uri) || null},
          logo_uri = ${pick(optionalUrl(body, 'logo_uri'), current.logo_uri) || null},
          scope = ${pick(optionalScope(body), current.scope) || null},
          updated_at = now()
        where id = ${id} returning ${sql.unsafe(COLUMNS)}`;
      if (!row) throw authErrors.oauthClientNotFound();
      return clientJson(row);
    },

    /** Deleting a client ends its pending codes, its users' consents and the sessions it opened. */
    async remove(id: string): Promise<void> {
      await get(id);
      await sql`delete from auth.oauth_clients where id = ${id}`;
    },

    async regenerateSecret(id: string): Promise<OAuthClientJson> {
      const current = await get(id);
      if (current.client_type !== 'confidential') {
        throw authErrors.validation('Cannot regenerate secret for public client');
      }
      const secret = randomToken();
      const [row] = await sql<OAuthClientRow[]>`
        update auth.oauth_clients set client_secret_hash = ${hashSecret(secret)}, updated_at = now()
        where id = ${id} returning ${sql.unsafe(COLUMNS)}`;
      if (!row) throw authErrors.oauthClientNotFound();
      return clientJson(row, secret);
    },

    /**
     * The client a token request authenticates as: the method used (Basic header, secret in the body, or none)
     * must be the one registered, and a secret must match its hash. Errors are GoTrue's invalid_credentials.
     */
    async authenticate(credentials: ClientCredentials): Promise<OAuthClientRow> {
      if (!credentials.clientId) throw authErrors.invalidClientCredentials('client_id is required');
      const client = await find(credentials.clientId);
      if (!client) throw authErrors.invalidClientCredentials('unknown client');
      if (credentials.method !== client.token_endpoint_auth_method) {
        throw authErrors.invalidClientCredentials(
          `client is registered for '${client.token_endpoint_auth_method}' but '${credentials.method}' was used`,
        );
      }
      if (client.client_secret_hash) {
        const given = Buffer.from(hashSecret(credentials.secret ?? ''));
        const stored = Buffer.from(client.client_secret_hash);
        if (given.length !== stored.length || !timingSafeEqual(given, stored)) {
          throw authErrors.invalidClientCredentials('secret does not match');
        }
      }
      return client;
    },
  };
}

export interface ClientCredentials {
  clientId: string | undefined;
  secret: string | undefined;
  method: TokenEndpointAuthMethod;
}

export type OAuthClientRegistry = ReturnType<typeof createOAuthClientRegistry>;
