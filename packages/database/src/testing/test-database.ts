// A fresh database per test file, cloned from a template that holds the given migrations.
// Cloning (CREATE DATABASE ... TEMPLATE) takes milliseconds; migrating from scratch would take seconds.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { loadMigrations, migrate, migrationsFingerprint, type MigrationSet } from '../migrations.js';
import { authenticatorUrl, recordAuthenticatorPassword } from '../roles.js';
import { testCluster } from './test-cluster.js';

export interface TestDatabase {
  name: string;
  /** Owner (superuser in the embedded cluster) URL of this database. */
  ownerUrl: string;
  /** URL logging in as authenticator, like the server's request pool. */
  requestUrl: string;
  authenticatorPassword: string;
  /** Owner client, for arranging and inspecting data. */
  sql: postgres.Sql;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

async function ensureTemplate(admin: postgres.Sql, adminUrl: string, sets: readonly MigrationSet[]): Promise<string> {
  const name = `tmpl_${migrationsFingerprint(loadMigrations(sets))}`;
  await admin`select pg_advisory_lock(hashtext(${name}))`;
  try {
    const [row] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!row) {
      const building = `${name}_build_${randomBytes(4).toString('hex')}`;
      await admin.unsafe(`create database "${building}"`);
      await migrate(withDatabase(adminUrl, building), sets);
      await admin.unsafe(`alter database "${building}" rename to "${name}"`);
      await admin.unsafe(`alter database "${name}" with is_template true allow_connections false`);
    }
  } finally {
    await admin`select pg_advisory_unlock(hashtext(${name}))`;
  }
  return name;
}

export async function createTestDatabase(sets: readonly MigrationSet[]): Promise<TestDatabase> {
  const { adminUrl, authenticatorPassword: password } = await testCluster();
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const name = `test_${randomBytes(6).toString('hex')}`;
  try {
    const template = await ensureTemplate(admin, adminUrl, sets);
    await admin.unsafe(`create database "${name}" template "${template}"`);
  } finally {
    await admin.end();
  }
  const ownerUrl = withDatabase(adminUrl, name);
  // A server started on this database must keep the run's authenticator password, not set its own.
  await recordAuthenticatorPassword(ownerUrl, password);
  const sql = postgres(ownerUrl, { max: 4, onnotice: () => {} });
  return {
    name,
    ownerUrl,
    requestUrl: authenticatorUrl(ownerUrl, password),
    authenticatorPassword: password,
    sql,
    async drop() {
      await sql.end();
      const a = postgres(adminUrl, { max: 1, onnotice: () => {} });
      try {
        // A server's temporary replication slot goes away with its WAL sender, a moment after the server closed.
        for (let attempt = 1; ; attempt++) {
          try {
            await a.unsafe(`drop database if exists "${name}" with (force)`);
            break;
          } catch (error) {
            if ((error as { code?: string }).code !== '55006' || attempt === 50) throw error;
            await new Promise((r) => setTimeout(r, 100));
          }
        }
      } finally {
        await a.end();
      }
    },
  };
}
