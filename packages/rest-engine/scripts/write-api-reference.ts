// `pnpm api-reference`: rewrites packages/rest-engine/API.md from the package's public types.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generateApiReference } from './api-reference.js';

const entry = fileURLToPath(new URL('../src/index.ts', import.meta.url));
writeFileSync(new URL('../API.md', import.meta.url), generateApiReference(entry));
