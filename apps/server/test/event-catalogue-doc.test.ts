// docs/event-catalogue.md is generated from the catalogue the areas' migrations fill (public.event_types; the domain
// and other sets, such as auction-data's auction.restored), so no document lists event types or counts them by
// hand. After adding an event, regenerate it with
// `npx vitest run apps/server/test/event-catalogue-doc.test.ts -u`; CI fails while it is stale. Each type's
// `since_version` is checked here against CHANGELOG.md: the release naming the migration that declares it.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadMigrations } from '@auction-ops/database';
import { createTestDatabase, type TestDatabase } from '@auction-ops/database/testing';
import { migrationSets } from '@auction-ops/server-config/migration-sets';
import { comingVersion, releaseOf } from '../../../scripts/release/changelog.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase(migrationSets);
});
afterAll(async () => {
  await db?.drop();
});

interface EventType {
  name: string;
  area: string;
  emitted_when: string;
  data_fields: string;
  sample: object;
  since_version: string;
}

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** A Markdown table with its columns padded to their widest cell, as the formatter (Biome) writes tables. */
function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = head.map((h, i) => Math.max(3, h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i])).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)];
}

function render(types: readonly EventType[]): string {
  const lines = [
    '# Event catalogue',
    '',
    '<!-- Generated from public.event_types by apps/server/test/event-catalogue-doc.test.ts: do not edit. -->',
    '',
    'Every event type, as the migration of the area that emits it declares it. The outbox row, the delivered body',
    'and the conventions of `data` are in [events.md](events.md); `test_webhook` sends the sample below.',
  ];
  for (const area of [...new Set(types.map((t) => t.area))]) {
    const rows = types
      .filter((t) => t.area === area)
      .map((t) => [`\`${t.name}\``, t.since_version, cell(t.emitted_when), cell(t.data_fields)]);
    lines.push('', `## ${area}`, '', ...table(['event', 'since', 'when', 'data'], rows));
  }
  lines.push('', '## Samples', '');
  for (const t of types) lines.push(`\`${t.name}\`:`, '', '```json', JSON.stringify(t.sample, null, 2), '```', '');
  return lines.join('\n');
}

it('docs/event-catalogue.md is the catalogue as the migrations declare it', async () => {
  const types = await db.sql<EventType[]>`
    select name, area, emitted_when, data_fields, sample, since_version from public.event_types
     order by area, name`;
  await expect(render(types)).toMatchFileSnapshot('../../../docs/event-catalogue.md');
});

/** The event types a migration's `insert into public.event_types` statements declare (each tuple's first value). */
function declaredTypes(sql: string): string[] {
  return sql
    .split(/;\s*\n/)
    .filter((statement) => /^\s*insert into public\.event_types\b/m.test(statement.replace(/^--.*$/gm, '')))
    .flatMap((statement) =>
      [...statement.matchAll(/(?:^|values)\s*\(\s*'([a-z_]+\.[a-z_]+)'\s*,/gm)].map((m) => m[1]!),
    );
}

it("each type's since_version is the release that declared it (the coming minor while unreleased)", async () => {
  const changelog = readFileSync(fileURLToPath(new URL('../../../CHANGELOG.md', import.meta.url)), 'utf8');
  const migrations = loadMigrations(migrationSets);
  const ids = migrations.map((m) => `${m.set}/${m.name}`);
  const declaredBy = new Map<string, string>();
  for (const m of migrations)
    for (const type of declaredTypes(m.sql)) if (!declaredBy.has(type)) declaredBy.set(type, `${m.set}/${m.name}`);
  const types = await db.sql<{ name: string; since_version: string }[]>`
    select name, since_version from public.event_types order by name`;
  expect([...declaredBy.keys()].sort(), 'types found in the migrations against the catalogue').toEqual(
    types.map((t) => t.name),
  );
  const wrong = types
    .map((t) => {
      const migration = declaredBy.get(t.name)!;
      const expected = releaseOf(changelog, ids, migration) ?? comingVersion(changelog);
      return { type: t.name, migration, since_version: t.since_version, expected };
    })
    .filter((t) => t.since_version !== t.expected);
  expect(wrong, 'since_version: the release naming the declaring migration, else the coming minor').toEqual([]);
});
