// SSO identity providers (GoTrue's admin/sso/providers): registering a SAML provider from its metadata (XML, or
// an HTTPS URL fetched once), its e-mail domains, attribute mapping and NameID format; and the JSON GoTrue answers.
import type postgres from 'postgres';
import { AuthError, authErrors } from './errors.js';
import { type IdpMetadata, parseIdpMetadata } from './saml-metadata.js';

type Sql = postgres.Sql | postgres.TransactionSql;

export const NAME_ID_FORMATS = [
  'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
];

const MAX_METADATA_BYTES = 1024 * 1024;
const METADATA_TIMEOUT_MS = 10_000;

export interface SsoProviderRow {
  id: string;
  saml_id: string;
  entity_id: string;
  metadata_xml: string;
  metadata_url: string | null;
  attribute_mapping: AttributeMapping;
  name_id_format: string | null;
  resource_id: string | null;
  disabled: boolean | null;
  created_at: Date;
  updated_at: Date;
  domains: Array<{ id: string; domain: string; created_at: string; updated_at: string }>;
}

/** GoTrue's SAMLAttributeMapping: which assertion attributes become which user_metadata claims. */
export interface AttributeMapping {
  keys?: Record<string, { name?: string; names?: string[]; default?: unknown; array?: boolean }>;
}

export const ssoErrors = {
  providerNotFound: (message = 'SSO Identity Provider not found') =>
    new AuthError(404, 'sso_provider_not_found', message),
  idpAlreadyExists: (entityId: string) =>
    new AuthError(
      422,
      'saml_idp_already_exists',
      `SAML Identity Provider with this EntityID (${entityId}) already exists`,
    ),
  domainAlreadyExists: (domain: string, providerId: string) =>
    new AuthError(
      400,
      'sso_domain_already_exists',
      `SSO Domain '${domain}' is already assigned to an SSO identity provider (${providerId})`,
    ),
  entityIdMismatch: (expected: string, got: string) =>
    new AuthError(
      400,
      'saml_entity_id_mismatch',
      `SAML Metadata can be updated only if the EntityID matches for the provider; expected '${expected}' but got '${got}'`,
    ),
  metadataFetchFailed: (message: string) => new AuthError(400, 'saml_metadata_fetch_failed', message),
  providerDisabled: () =>
    new AuthError(404, 'sso_provider_disabled', 'SSO Provider assigned for this domain is currently disabled'),
};

const iso = (d: Date | string) => new Date(d).toISOString();

/** The provider as GoTrue renders it; the list leaves metadata_xml empty to keep the answer small. */
function ssoProviderJson(row: SsoProviderRow, withMetadata = true) {
  return {
    id: row.id,
    ...(row.resource_id !== null ? { resource_id: row.resource_id } : {}),
    ...(row.disabled !== null ? { disabled: row.disabled } : {}),
    saml: {
      id: row.saml_id,
      entity_id: row.entity_id,
      ...(row.metadata_url ? { metadata_url: row.metadata_url } : {}),
      metadata_xml: withMetadata ? row.metadata_xml : '',
      attribute_mapping: row.attribute_mapping,
      ...(row.name_id_format ? { name_id_format: row.name_id_format } : {}),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    },
    domains: row.domains.map((d) => ({
      id: d.id,
      domain: d.domain,
      created_at: d.created_at,
      updated_at: d.updated_at,
    })),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

interface ProviderParams {
  type?: unknown;
  metadata_url?: unknown;
  metadata_xml?: unknown;
  domains?: unknown;
  attribute_mapping?: unknown;
  name_id_format?: unknown;
  resource_id?: unknown;
  disabled?: unknown;
}

interface ValidParams {
  metadataUrl?: string;
  metadataXml?: string;
  domains?: string[];
  attributeMapping?: AttributeMapping;
  nameIdFormat?: string;
  /** '' clears it. */
  resourceId?: string;
  disabled?: boolean;
}

const DOMAIN_RE = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw authErrors.validation(`${name} must be a string`);
  return value;
}

/** GoTrue's CreateSSOProviderParams.validate, plus the shapes its JSON decoder would refuse. */
function validateProviderParams(params: ProviderParams, forUpdate: boolean): ValidParams {
  if (!forUpdate && params.type !== 'saml') throw authErrors.validation("Only 'saml' supported for SSO provider type");
  const metadataUrl = optionalString(params.metadata_url, 'metadata_url');
  const metadataXml = optionalString(params.metadata_xml, 'metadata_xml');
  if (metadataUrl && metadataXml)
    throw authErrors.validation('Only one of metadata_xml or metadata_url needs to be set');
  if (!forUpdate && !metadataUrl && !metadataXml)
    throw authErrors.validation('Either metadata_xml or metadata_url must be set');
  if (metadataUrl) {
    let url: URL;
    try {
      url = new URL(metadataUrl);
    } catch {
      throw authErrors.validation('metadata_url is not a valid URL');
    }
    if (url.protocol !== 'https:') throw authErrors.validation('metadata_url is not a HTTPS URL');
  }
  const nameIdFormat = optionalString(params.name_id_format, 'name_id_format');
  if (nameIdFormat && !NAME_ID_FORMATS.includes(nameIdFormat))
    throw authErrors.validation(`name_id_format must be unspecified or one of ${NAME_ID_FORMATS.join(', ')}`);
  let domains: string[] | undefined;
  if (params.domains !== undefined && params.domains !== null) {
    if (!Array.isArray(params.domains) || params.domains.some((d) => typeof d !== 'string'))
      throw authErrors.validation('domains must be an array of strings');
    domains = [...new Set((params.domains as string[]).map((d) => d.trim().toLowerCase()))];
    const bad = domains.find((d) => !DOMAIN_RE.test(d));
    if (bad !== undefined) throw authErrors.validation(`domain '${bad}' is not a valid domain name`);
  }
  let attributeMapping: AttributeMapping | undefined;
  if (params.attribute_mapping !== undefined && params.attribute_mapping !== null) {
    const mapping = params.attribute_mapping as AttributeMapping;
    const keys = mapping.keys;
    if (
      typeof mapping !== 'object' ||
      Array.isArray(mapping) ||
      (keys !== undefined && (typeof keys !== 'object' || keys === null || Array.isArray(keys)))
    )
      throw authErrors.validation('attribute_mapping must be an object of the form {"keys": {...}}');
    attributeMapping = keys ? { keys } : {};
  }
  if (params.resource_id !== undefined && params.resource_id !== null && typeof params.resource_id !== 'string')
    throw authErrors.validation('resource_id must be a string');
  if (params.disabled !== undefined && params.disabled !== null && typeof params.disabled !== 'boolean')
    throw authErrors.validation('disabled must be a boolean');
  const resourceId = typeof params.resource_id === 'string' ? params.resource_id : undefined;
  const disabled = typeof params.disabled === 'boolean' ? params.disabled : undefined;
  return { metadataUrl, metadataXml, domains, attributeMapping, nameIdFormat, resourceId, disabled };
}

/** The metadata given inline, or fetched from its HTTPS URL (bounded in time and size). */
async function loadMetadata(params: ValidParams): Promise<{ xml: string; metadata: IdpMetadata } | undefined> {
  let xml = params.metadataXml;
  if (!xml && params.metadataUrl) xml = await fetchMetadata(params.metadataUrl);
  if (!xml) return undefined;
  return { xml, metadata: parseIdpMetadata(xml) };
}

export async function fetchMetadata(url: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/xml;charset=UTF-8' },
      signal: AbortSignal.timeout(METADATA_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (error) {
    throw ssoErrors.metadataFetchFailed(`Error fetching SAML Metadata from URL '${url}': ${(error as Error).message}`);
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    throw ssoErrors.metadataFetchFailed(`HTTP ${res.status} error fetching SAML Metadata from URL '${url}'`);
  }
  return readBounded(res);
}

/** The body as text, refused (and the transfer cut) past MAX_METADATA_BYTES. */
async function readBounded(res: Response): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_METADATA_BYTES) {
      await reader.cancel();
      throw ssoErrors.metadataFetchFailed('SAML Metadata is larger than 1 MB');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

const PROVIDER_SELECT = `p.id, p.saml_id, p.entity_id, p.metadata_xml, p.metadata_url, p.attribute_mapping,
  p.name_id_format, p.resource_id, p.disabled, p.created_at, p.updated_at,
  coalesce((select json_agg(json_build_object('id', d.id, 'domain', d.domain, 'created_at', d.created_at,
    'updated_at', d.updated_at) order by d.domain) from auth.sso_domains d where d.sso_provider_id = p.id), '[]')
    as domains`;

const RESOURCE_PREFIX = 'resource_';
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** By id, or by resource id when the path says `resource_<key>` (GoTrue's admin paths). */
export async function findProviderById(sql: Sql, id: unknown): Promise<SsoProviderRow | undefined> {
  if (typeof id === 'string' && id.startsWith(RESOURCE_PREFIX)) {
    const [row] = await sql.unsafe<SsoProviderRow[]>(
      `select ${PROVIDER_SELECT} from auth.sso_providers p where p.resource_id = $1`,
      [id.slice(RESOURCE_PREFIX.length)],
    );
    return row;
  }
  if (typeof id !== 'string' || !UUID_RE.test(id)) return undefined;
  const [row] = await sql.unsafe<SsoProviderRow[]>(
    `select ${PROVIDER_SELECT} from auth.sso_providers p where p.id = $1`,
    [id],
  );
  return row;
}

export async function findProviderByDomain(sql: Sql, domain: string): Promise<SsoProviderRow | undefined> {
  const [row] = await sql.unsafe<SsoProviderRow[]>(
    `select ${PROVIDER_SELECT} from auth.sso_providers p
     join auth.sso_domains d on d.sso_provider_id = p.id where lower(d.domain) = lower($1)`,
    [domain.trim()],
  );
  return row;
}

async function assertResourceIdFree(sql: Sql, resourceId: string | undefined, providerId: string | null) {
  if (!resourceId) return;
  const [taken] = await sql`select 1 from auth.sso_providers
    where resource_id = ${resourceId} and id is distinct from ${providerId}::uuid`;
  if (taken) throw new AuthError(422, 'conflict', `An SSO provider with resource_id '${resourceId}' already exists`);
}

async function assertDomainsFree(sql: Sql, domains: string[], providerId: string | null): Promise<void> {
  if (domains.length === 0) return;
  const [taken] = await sql<Array<{ domain: string; sso_provider_id: string }>>`
    select domain, sso_provider_id from auth.sso_domains
    where lower(domain) in ${sql(domains)} and sso_provider_id is distinct from ${providerId}::uuid limit 1`;
  if (taken) throw ssoErrors.domainAlreadyExists(taken.domain, taken.sso_provider_id);
}

export function createSsoProviders(sql: postgres.Sql) {
  async function mustFind(id: unknown): Promise<SsoProviderRow> {
    const row = await findProviderById(sql, id);
    if (!row) throw ssoErrors.providerNotFound();
    return row;
  }

  return {
    async list() {
      const rows = await sql.unsafe<SsoProviderRow[]>(
        `select ${PROVIDER_SELECT} from auth.sso_providers p order by p.created_at, p.id`,
      );
      return { items: rows.map((row) => ssoProviderJson(row, false)) };
    },

    get: async (id: unknown) => ssoProviderJson(await mustFind(id)),

    async create(params: ProviderParams) {
      const valid = validateProviderParams(params, false);
      const loaded = (await loadMetadata(valid))!;
      const id = await sql.begin(async (tx) => {
        const [exists] = await tx`select 1 from auth.sso_providers where entity_id = ${loaded.metadata.entityId}`;
        if (exists) throw ssoErrors.idpAlreadyExists(loaded.metadata.entityId);
        await assertDomainsFree(tx, valid.domains ?? [], null);
        await assertResourceIdFree(tx, valid.resourceId, null);
        const [row] = await tx<Array<{ id: string }>>`
          insert into auth.sso_providers (entity_id, metadata_xml, metadata_url, attribute_mapping, name_id_format,
            resource_id, disabled)
          values (${loaded.metadata.entityId}, ${loaded.xml}, ${valid.metadataUrl ?? null},
            ${tx.json((valid.attributeMapping ?? {}) as postgres.JSONValue)}, ${valid.nameIdFormat ?? null},
            ${valid.resourceId || null}, ${valid.disabled ?? null})
          returning id`;
        for (const domain of valid.domains ?? []) {
          await tx`insert into auth.sso_domains (sso_provider_id, domain) values (${row!.id}, ${domain})`;
        }
        return row!.id;
      });
      return ssoProviderJson(await mustFind(id));
    },

    /** Only what the body names changes; `domains` given replaces the whole list. */
    async update(id: unknown, params: ProviderParams) {
      const current = await mustFind(id);
      const valid = validateProviderParams(params, true);
      const loaded = await loadMetadata(valid);
      if (loaded && loaded.metadata.entityId !== current.entity_id)
        throw ssoErrors.entityIdMismatch(current.entity_id, loaded.metadata.entityId);
      await sql.begin(async (tx) => {
        await assertResourceIdFree(tx, valid.resourceId, current.id);
        await tx`
          update auth.sso_providers set
            metadata_xml = coalesce(${loaded?.xml ?? null}, metadata_xml),
            metadata_url = coalesce(${valid.metadataUrl ?? null}, metadata_url),
            attribute_mapping = coalesce(${valid.attributeMapping ? tx.json(valid.attributeMapping as postgres.JSONValue) : null}, attribute_mapping),
            name_id_format = case when ${params.name_id_format !== undefined} then ${valid.nameIdFormat ?? null}
              else name_id_format end,
            resource_id = case when ${valid.resourceId !== undefined} then ${valid.resourceId || null}
              else resource_id end,
            disabled = coalesce(${valid.disabled ?? null}, disabled),
            updated_at = now()
          where id = ${current.id}`;
        if (valid.domains) {
          await assertDomainsFree(tx, valid.domains, current.id);
          await tx`delete from auth.sso_domains where sso_provider_id = ${current.id}
            and not (lower(domain) in ${tx(valid.domains.length ? valid.domains : [''])})`;
          for (const domain of valid.domains) {
            await tx`insert into auth.sso_domains (sso_provider_id, domain)
              select ${current.id}, ${domain}
              where not exists (select 1 from auth.sso_domains where lower(domain) = ${domain})`;
          }
        }
      });
      return ssoProviderJson(await mustFind(current.id));
    },

    async remove(id: unknown) {
      const current = await mustFind(id);
      await sql`delete from auth.sso_providers where id = ${current.id}`;
      return ssoProviderJson(current);
    },
  };
}

export type SsoProviders = ReturnType<typeof createSsoProviders>;
