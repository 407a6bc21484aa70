// The realtime migrations: the publication, batched authorization of changes, and shared instance state.
import { fileURLToPath } from 'node:url';

export const realtimeMigrations = {
  name: 'realtime',
  dir: fileURLToPath(new URL('../migrations', import.meta.url)),
  dependsOn: ['auth-core'],
} as const;

/** The publication change capture streams; tables join it to become subscribable. */
export const PUBLICATION = 'auction_ops_realtime';
