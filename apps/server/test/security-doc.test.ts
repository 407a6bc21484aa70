// docs/security.md names, for every trust boundary, the test that holds it: a renamed or deleted test must not
// leave the threat model pointing at nothing. Every `*.test.ts` path it names must exist, and every quoted title
// (› "...") after a path must be a test of that file.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..', '..');
const squash = (text: string) => text.replace(/\s+/g, ' ');

interface Reference {
  file: string;
  titles: string[];
}

function references(doc: string): Reference[] {
  const found: Reference[] = [];
  for (const match of squash(doc).matchAll(/`([\w./-]+\.test\.ts)`|› "([^"]+)"/g)) {
    if (match[1]) found.push({ file: match[1], titles: [] });
    else found.at(-1)?.titles.push(match[2]!);
  }
  return found;
}

it('names only tests that exist, by file and by title', () => {
  const refs = references(readFileSync(join(root, 'docs', 'security.md'), 'utf8'));
  expect(refs.length).toBeGreaterThan(10);
  const missing: string[] = [];
  for (const { file, titles } of refs) {
    const path = join(root, file);
    if (!existsSync(path)) {
      missing.push(file);
      continue;
    }
    const source = squash(readFileSync(path, 'utf8').replaceAll("\\'", "'"));
    for (const title of titles) if (!source.includes(title)) missing.push(`${file} › "${title}"`);
  }
  expect(missing).toEqual([]);
});

it('reads a path and the titles after it', () => {
  expect(references('`a/b.test.ts` › "one", › "two\n  lines"; `c.test.ts`')).toEqual([
    { file: 'a/b.test.ts', titles: ['one', 'two lines'] },
    { file: 'c.test.ts', titles: [] },
  ]);
});
