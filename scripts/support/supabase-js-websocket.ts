// Setup file of the supabase-js integration run: Node 20 has no global WebSocket (Node 22 has), and the suite's
// own fallback (`require('ws')`) does not run in an ES module, so realtime-js gets the `ws` package here.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const fromServer = createRequire(join(import.meta.dirname, '../../apps/server/package.json'));
if (typeof globalThis.WebSocket === 'undefined')
  (globalThis as Record<string, unknown>).WebSocket = fromServer('ws') as unknown;
