// The relay in front of PostgreSQL (pg-relay.ts) in a process of its own. In the orchestrator's process it shared an
// event loop with the gathering of every record of the load processes: at K = 20 the requests' pool starved (its
// connections waited on the relay) while PostgreSQL sat idle and the pools that go direct kept working.
import { tell } from './child.js';
import type { ToRelay } from './messages.js';
import { type PgRelay, startPgRelay } from './pg-relay.js';

let relay: PgRelay | undefined;

process.on('message', async (m: ToRelay) => {
  if (m.type === 'start') {
    relay = await startPgRelay(m.dataDir);
    tell({ type: 'started', port: relay.port });
    return;
  }
  if (m.type === 'cut') await relay?.cut();
  else if (m.type === 'restore') await relay?.restore();
  else await relay?.close();
  tell({ type: 'relayed', id: m.id });
  if (m.type === 'stop') process.exit(0);
});
tell({ type: 'ready' });
