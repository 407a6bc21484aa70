// API.md is what the public types say today: regenerate it with `pnpm api-reference` after changing an export.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { generateApiReference } from '../scripts/api-reference.js';

it('API.md matches the exported types and their doc comments', () => {
  const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
  const written = readFileSync(new URL('../API.md', import.meta.url), 'utf8');
  const generated = generateApiReference(entry);
  expect(generated).toContain('## createRestEngine');
  expect(generated).toContain('txEnd?: TxEnd;');
  expect(written, 'API.md is stale: run `pnpm api-reference`').toBe(generated);
}, 60_000);
