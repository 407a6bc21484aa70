// The suite's database as PostgREST's own test setup makes it (nix/tools/withTools.nix, withTmpDb): a fresh cluster
// made with initdb --no-locale --encoding=UTF8 in the UTC time zone with pg_stat_statements preloaded, a
// minimally privileged login role Postgrest_Test_Authenticator (mixed case on purpose), then
// test/spec/fixtures/load.sql run by the superuser with the variable PGUSER and `search_path=public,test`,
// then VACUUM ANALYZE.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PostgisCluster, startPostgis } from '../conformance-postgres.js';

export const AUTHENTICATOR = 'Postgrest_Test_Authenticator';

// A copy of the fixtures' database `postgres`, then its database-level settings (database.sql sets one), which
// CREATE DATABASE does not copy. The setting names come from the catalog; the values are quoted as literals.
const COPY_SQL = `CREATE DATABASE :"name" TEMPLATE postgres;
SELECT format('ALTER DATABASE %I SET %s TO %L', :'name', split_part(c, '=', 1), substr(c, strpos(c, '=') + 1))
  FROM pg_db_role_setting s CROSS JOIN unnest(s.setconfig) AS c
 WHERE s.setrole = 0 AND s.setdatabase = (SELECT oid FROM pg_database WHERE datname = 'postgres')
\\gexec
`;

export interface SuiteDatabase {
  readonly cluster: PostgisCluster;
  /** The URL the engine connects with, as the authenticator. */
  readonly engineUrl: string;
  /** server_version_num (the suite's actualPgVersion). */
  readonly version: number;
  /**
   * A fresh copy of the loaded database (with its ALTER DATABASE settings); answers the URL the engine connects
   * with. One per spec file: a write that an engine commits by mistake then fails its own file, not every file
   * after it (PostgREST's run shares one database because PostgREST rolls every such write back).
   */
  copy(name: string): string;
  stop(): void;
}

/** `root`: the staged checkout (its test/ folder). */
export async function startSuiteDatabase(root: string): Promise<SuiteDatabase> {
  const cluster = await startPostgis({
    initdb: ['--no-locale', '--encoding=UTF8'],
    settings: { shared_preload_libraries: 'pg_stat_statements', autovacuum: 'off' },
    tz: 'UTC',
  });
  const dir = mkdtempSync(join(tmpdir(), 'pgrst-suite-sql-'));
  try {
    const password = 'authenticator-password';
    const role = join(dir, 'role.sql');
    // psql quotes the variables (:"name" as an identifier, :'name' as a literal): no value is spliced by hand.
    writeFileSync(
      role,
      'CREATE ROLE :"user" LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :\'password\';\n',
    );
    cluster.psql(role, 'postgres', { vars: { user: AUTHENTICATOR, password } });
    const session = { PGOPTIONS: '-c search_path=public,test', PGTZ: 'utc' };
    cluster.psql(join(root, 'test/spec/fixtures/load.sql'), 'postgres', {
      vars: { PGUSER: AUTHENTICATOR },
      env: session,
    });
    const vacuum = join(dir, 'vacuum.sql');
    writeFileSync(vacuum, 'VACUUM ANALYZE;\n');
    cluster.psql(vacuum);
    const url = new URL(cluster.url);
    url.username = AUTHENTICATOR;
    url.password = password;
    const version = Number(
      execFileSync('/usr/lib/postgresql/15/bin/psql', ['-XtAc', 'show server_version_num', cluster.url], {
        encoding: 'utf8',
      }).trim(),
    );
    const copySql = join(root, 'pgrst-suite-copy.sql');
    writeFileSync(copySql, COPY_SQL);
    return {
      cluster,
      version,
      engineUrl: url.toString(),
      copy(name) {
        cluster.psql(copySql, 'template1', { vars: { name } });
        const u = new URL(url);
        u.pathname = `/${name}`;
        return u.toString();
      },
      stop: () => cluster.stop(),
    };
  } catch (e) {
    cluster.stop();
    throw e;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
