// What the test compares across the upgrade, computed independently of the upgrade's own checks: per table its
// row count and the md5 of its rows' text in a stable order (both clusters use the C locale).
import postgres from 'postgres';

export async function tableDigests(url: string): Promise<Map<string, string>> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, connection: { TimeZone: 'UTC', search_path: 'pg_catalog' } });
  try {
    const tables = await sql<{ name: string }[]>`
      select c.oid::regclass::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
       where c.relkind = 'r' and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
       order by 1`;
    const digests = new Map<string, string>();
    for (const { name } of tables) {
      const [row] = await sql.unsafe<{ n: string; md5: string }[]>(
        `select count(*)::text as n, md5(coalesce(string_agg(t::text, E'\\n' order by t::text), '')) as md5
           from ${name} t`,
      );
      digests.set(name, `${row!.n} ${row!.md5}`);
    }
    return digests;
  } finally {
    await sql.end();
  }
}
