// Realtime: the sockets and joined channels the answering server process holds right now, and the frames it has
// sent and received since it started (the realtime service's own counters, from /console/api/status).
import { h, markReady } from '../dom.js';
import { fetchStatus } from '../session.js';
import { list } from './status.js';

interface RealtimeNumbers {
  connections: number;
  channels: number;
  frames_sent: number;
  frames_received: number;
}

export async function renderRealtime(main: HTMLElement): Promise<void> {
  const status = await fetchStatus();
  const realtime = status.realtime as RealtimeNumbers;
  const limits = status.limits as Record<string, unknown>;
  main.replaceChildren(
    h('h1', {}, 'Realtime'),
    list('Now', { connections: realtime.connections, 'joined channels': realtime.channels }),
    list('Since the process started', {
      'frames sent': realtime.frames_sent,
      'frames received': realtime.frames_received,
      'uptime (s)': status.uptime_seconds,
    }),
    list('Limits', { 'connections per client address': limits.realtime_max_connections_per_ip }),
    ...(Number(status.processes) > 1
      ? [h('p', {}, `These are the numbers of the one process that answered; the server runs ${status.processes}.`)]
      : []),
  );
  markReady('realtime');
}
