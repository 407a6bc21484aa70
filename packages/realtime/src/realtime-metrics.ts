// Realtime's metrics, defined here where the work is counted and registered by the server in its registry:
// channels joined and frames sent and received, read from the service's stats() at scrape time.
import { counterOnScrape, gaugeOnScrape } from '@auction-ops/observability';
import type { Registry } from 'prom-client';
import type { RealtimeStats } from './realtime-service.js';

/** Realtime's per-process figures (counted by the realtime service); a cluster scrape sums the processes. */
export function registerRealtimeMetrics(registry: Registry, stats: () => RealtimeStats): void {
  gaugeOnScrape(
    registry,
    { name: 'realtime_channels', help: 'Channels joined on the open realtime connections' },
    () => stats().channels,
  );
  counterOnScrape(
    registry,
    { name: 'realtime_frames_sent_total', help: 'Realtime frames sent to clients (replies, changes, broadcasts)' },
    () => stats().framesSent,
  );
  counterOnScrape(
    registry,
    { name: 'realtime_frames_received_total', help: 'Realtime frames received from clients (heartbeats included)' },
    () => stats().framesReceived,
  );
}
