// A description of everything a cluster holds outside PostgreSQL's own schemas, as comparable lines, so two clusters
// (the old and the upgraded) can be told equal or different object by object. Definitions come from PostgreSQL's own
// deparsers; what changes between majors without meaning anything (the MAINTAIN privilege of 17, extension
// versions) is left out.
import type postgres from 'postgres';

/** One object: `key` names it (kind and identity); `def` is what must be equal. */
interface CatalogEntry {
  readonly key: string;
  readonly def: string;
}

export const USER_SCHEMA = (nsp: string) =>
  `${nsp} not in ('pg_catalog', 'information_schema') and ${nsp} not like 'pg\\_%'`;
export const NOT_EXTENSION = (catalog: string, oid: string) =>
  `not exists (select from pg_depend e where e.classid = '${catalog}'::regclass and e.objid = ${oid} and e.deptype = 'e')`;
/** An ACL as sorted grantee:privilege:grantor lines (MAINTAIN, new in 17, is in every owner's default). */
const ACL = (acl: string) => `coalesce((select string_agg(
    coalesce(nullif(x.grantee, 0)::regrole::text, 'public') || ':' || x.privilege_type || case when x.is_grantable
    then '*' else '' end || ':' || x.grantor::regrole::text, ',' order by 1)
  from aclexplode(${acl}) x where x.privilege_type <> 'MAINTAIN'), '')`;

/** What each database of a cluster holds apart: its schema objects, grants, publications, event triggers. */
const DATABASE_QUERIES: readonly string[] = [
  `select 'schema ' || quote_ident(n.nspname) as key, pg_get_userbyid(n.nspowner) || ' ' || ${ACL('n.nspacl')} as def
     from pg_namespace n where ${USER_SCHEMA('n.nspname')} and ${NOT_EXTENSION('pg_namespace', 'n.oid')}`,
  `select 'relation ' || c.oid::regclass::text as key, concat_ws(' ', c.relkind, c.relpersistence,
       pg_get_userbyid(c.relowner), 'rls=' || c.relrowsecurity, 'force=' || c.relforcerowsecurity,
       'partition=' || c.relispartition, ${ACL('c.relacl')},
       case when c.relkind in ('v', 'm') then md5(pg_get_viewdef(c.oid)) end) as def
     from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where c.relkind in ('r', 'p', 'v', 'm', 'S', 'f', 'c') and ${USER_SCHEMA('n.nspname')}
      and ${NOT_EXTENSION('pg_class', 'c.oid')}`,
  `select 'column ' || c.oid::regclass::text || '.' || quote_ident(a.attname) as key, concat_ws(' ',
       row_number() over (partition by c.oid order by a.attnum), format_type(a.atttypid, a.atttypmod),
       'notnull=' || a.attnotnull, 'generated=' || a.attgenerated::text, 'identity=' || a.attidentity::text,
       'default=' || pg_get_expr(d.adbin, d.adrelid), ${ACL('a.attacl')}) as def
     from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace
     left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
    where a.attnum > 0 and not a.attisdropped and c.relkind in ('r', 'p', 'v', 'm', 'f', 'c')
      and ${USER_SCHEMA('n.nspname')} and ${NOT_EXTENSION('pg_class', 'c.oid')}`,
  `select 'constraint ' || coalesce(c.conrelid::regclass::text, c.contypid::regtype::text) || ' '
       || quote_ident(c.conname) as key, pg_get_constraintdef(c.oid) as def
     from pg_constraint c join pg_namespace n on n.oid = c.connamespace
    where ${USER_SCHEMA('n.nspname')} and c.contype <> 'n'`,
  `select 'index ' || i.indexrelid::regclass::text as key, pg_get_indexdef(i.indexrelid) as def
     from pg_index i join pg_class c on c.oid = i.indexrelid join pg_namespace n on n.oid = c.relnamespace
    where ${USER_SCHEMA('n.nspname')} and ${NOT_EXTENSION('pg_class', 'i.indrelid')}`,
  `select 'policy ' || p.polrelid::regclass::text || ' ' || quote_ident(p.polname) as key, concat_ws(' ',
       p.polcmd, p.polpermissive, (select string_agg(coalesce(nullif(r, 0)::regrole::text, 'public'), ',' order by 1)
       from unnest(p.polroles) r), 'using=' || pg_get_expr(p.polqual, p.polrelid),
       'check=' || pg_get_expr(p.polwithcheck, p.polrelid)) as def
     from pg_policy p`,
  `select 'function ' || p.oid::regprocedure::text as key, concat_ws(' ', p.prokind, pg_get_userbyid(p.proowner),
       ${ACL('p.proacl')}, case when p.prokind <> 'a' then md5(pg_get_functiondef(p.oid)) end) as def
     from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where ${USER_SCHEMA('n.nspname')} and ${NOT_EXTENSION('pg_proc', 'p.oid')}`,
  `select 'trigger ' || t.tgrelid::regclass::text || ' ' || quote_ident(t.tgname) as key,
       pg_get_triggerdef(t.oid) || ' enabled=' || t.tgenabled::text as def
     from pg_trigger t where not t.tgisinternal`,
  `select 'type ' || t.oid::regtype::text as key, concat_ws(' ', t.typtype, pg_get_userbyid(t.typowner),
       (select string_agg(e.enumlabel, ',' order by e.enumsortorder) from pg_enum e where e.enumtypid = t.oid)) as def
     from pg_type t join pg_namespace n on n.oid = t.typnamespace
    where ${USER_SCHEMA('n.nspname')} and ${NOT_EXTENSION('pg_type', 't.oid')} and t.typcategory <> 'A'
      and (t.typtype in ('e', 'd', 'r', 'm', 'b')
        or (t.typtype = 'c' and (select c.relkind from pg_class c where c.oid = t.typrelid) = 'c'))`,
  `select 'publication ' || quote_ident(p.pubname) as key, concat_ws(' ', p.puballtables, p.pubinsert, p.pubupdate,
       p.pubdelete, p.pubtruncate, (select string_agg(pr.prrelid::regclass::text, ',' order by 1)
       from pg_publication_rel pr where pr.prpubid = p.oid)) as def from pg_publication p`,
  `select 'extension ' || quote_ident(x.extname) as key, x.extnamespace::regnamespace::text as def from pg_extension x`,
  `select 'event trigger ' || quote_ident(e.evtname) as key, e.evtevent as def from pg_event_trigger e`,
  `select 'large objects' as key, count(*)::text as def from pg_largeobject_metadata having count(*) > 0`,
  `select 'default privileges ' || pg_get_userbyid(d.defaclrole) || ' '
       || coalesce(nullif(d.defaclnamespace, 0)::regnamespace::text, '*') || ' ' || d.defaclobjtype::text as key,
       ${ACL('d.defaclacl')} as def from pg_default_acl d`,
];

/** What the databases of a cluster share (roles and their memberships, the databases), and every role setting. */
const CLUSTER_QUERIES: readonly string[] = [
  `select 'role ' || quote_ident(r.rolname) as key, concat_ws(' ', 'super=' || r.rolsuper, 'inherit=' || r.rolinherit,
       'createrole=' || r.rolcreaterole, 'createdb=' || r.rolcreatedb, 'login=' || r.rolcanlogin,
       'replication=' || r.rolreplication, 'bypassrls=' || r.rolbypassrls, 'config=' || r.rolconfig::text) as def
     from pg_roles r where r.rolname not like 'pg\\_%'`,
  `select 'membership ' || m.roleid::regrole::text || ' ' || m.member::regrole::text as key,
       'admin=' || bool_or(m.admin_option) as def
     from pg_auth_members m where m.roleid::regrole::text not like 'pg\\_%' group by 1`,
  `select 'database ' || quote_ident(d.datname) as key, pg_get_userbyid(d.datdba) as def
     from pg_database d where not d.datistemplate`,
  `select 'setting ' || coalesce(d.datname, '*') || ' ' || coalesce(r.rolname, '*') as key,
       s.setconfig::text as def from pg_db_role_setting s
     left join pg_database d on d.oid = s.setdatabase left join pg_roles r on r.oid = s.setrole`,
];

/** One database's own role settings, keyed without its name (databases of one cluster are compared). */
const THIS_DATABASE_SETTINGS = `select 'setting ' || coalesce(r.rolname, '*') as key, s.setconfig::text as def
  from pg_db_role_setting s left join pg_roles r on r.oid = s.setrole
 where s.setdatabase = (select oid from pg_database where datname = current_database())`;

/**
 * Every entry, keyed; run on one connection of the database the server uses. `cluster` (the default) adds what the
 * cluster shares, for two clusters; `database` leaves that out, for two databases of one cluster (schema parity).
 */
export async function catalogSnapshot(
  sql: postgres.Sql,
  scope: 'cluster' | 'database' = 'cluster',
): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  const queries =
    scope === 'cluster' ? [...DATABASE_QUERIES, ...CLUSTER_QUERIES] : [...DATABASE_QUERIES, THIS_DATABASE_SETTINGS];
  for (const query of queries)
    for (const row of await sql.unsafe<CatalogEntry[]>(query)) entries.set(row.key, row.def ?? '');
  return entries;
}

interface CatalogDifference {
  /** In the old cluster only: what the upgrade did not (or could not) carry. */
  missing: string[];
  /** In the new cluster only, or defined differently. */
  different: string[];
}

/**
 * `newOnlyAllowed`: objects the new cluster may have alone, those code (not a migration) adds to a ledger that an
 * older release made without them. `labels` name the two sides in the lines (schema parity: fresh and upgraded).
 */
export function compareCatalogs(
  oldCatalog: Map<string, string>,
  newCatalog: Map<string, string>,
  newOnlyAllowed: (key: string) => boolean = () => false,
  [oldLabel, newLabel]: readonly [string, string] = ['old', 'new'],
): CatalogDifference {
  const missing: string[] = [];
  const different: string[] = [];
  for (const [key, def] of oldCatalog) {
    const other = newCatalog.get(key);
    if (other === undefined) missing.push(key);
    else if (other !== def) different.push(`${key}: ${def} (${oldLabel}) vs ${other} (${newLabel})`);
  }
  for (const key of newCatalog.keys())
    if (!oldCatalog.has(key) && !newOnlyAllowed(key)) different.push(`${key} (${newLabel} only)`);
  return { missing: missing.sort(), different: different.sort() };
}
