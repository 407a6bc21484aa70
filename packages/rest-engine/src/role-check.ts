// The start-up check of the anonymous role: a misspelled or ungranted role would otherwise answer every anonymous
// request with a database error that blames the client.

type Sql = import('postgres').Sql;

export async function checkAnonRole(sql: Sql, anonRole: string): Promise<void> {
  const [row] = await sql<{ exists: boolean; member: boolean | null; user: string }[]>`
    select exists(select from pg_roles where rolname = ${anonRole}) as exists,
           case when exists(select from pg_roles where rolname = ${anonRole})
                then pg_has_role(current_user, ${anonRole}, 'member') end as member,
           current_user as user`;
  if (!row!.exists)
    throw new Error(`rest-engine: the anonymous role "${anonRole}" does not exist (CREATE ROLE ${anonRole} NOLOGIN)`);
  if (!row!.member)
    throw new Error(
      `rest-engine: the authenticator "${row!.user}" cannot switch to the anonymous role "${anonRole}" (GRANT ${anonRole} TO ${row!.user})`,
    );
}
