// SSO identity providers (GoTrue's admin/sso/providers): registering a SAML provider from its metadata, changing
// its metadata, e-mail domains, attribute mapping and NameID format, removing it; and the JSON GoTrue answers.
import type postgres from 'postgres';
import { loadMetadata } from './saml-metadata-source.js';
import { ssoErrors } from './sso-errors.js';
import { type ProviderParams, validateProviderParams } from './sso-provider-params.js';
import {
  assertDomainsFree,
  assertResourceIdFree,
  findProviderById,
  PROVIDER_SELECT,
  type SsoProviderRow,
} from './sso-provider-store.js';

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
