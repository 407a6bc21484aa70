// The workspace reads rest-engine's sources (its package exports point at the published dist/), as tsconfig.json's
// `paths` do for tsc and tsx: every Vitest configuration resolves the package with this alias.
import { fileURLToPath } from 'node:url';

export const sourceAlias = {
  alias: [
    {
      find: /^@auction-ops\/rest-engine$/,
      replacement: fileURLToPath(new URL('./packages/rest-engine/src/index.ts', import.meta.url)),
    },
  ],
};
