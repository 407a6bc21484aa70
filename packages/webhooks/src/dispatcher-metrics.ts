// The dispatcher's metrics, defined here where the work is counted and registered by the server in its registry:
// attempts in flight, attempts finished by outcome, restarts of a stalled loop. Read from stats() at scrape time.
import { counterOnScrape, gaugeOnScrape } from '@auction-ops/observability';
import { Counter, type Registry } from 'prom-client';

/** The webhook dispatcher's own counts (kept as plain numbers by the dispatcher). */
export function registerDispatcherMetrics(
  registry: Registry,
  stats: () => { delivered: number; failedAttempts: number; inFlight: number; restarts: number },
): void {
  gaugeOnScrape(
    registry,
    { name: 'webhook_attempts_in_flight', help: 'Webhook attempts being sent now' },
    () => stats().inFlight,
  );
  new Counter({
    name: 'webhook_attempts_total',
    help: 'Webhook delivery attempts finished by this server, by outcome (delivered: a 2xx answer)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      const s = stats();
      this.reset();
      this.inc({ outcome: 'delivered' }, s.delivered);
      this.inc({ outcome: 'failed' }, s.failedAttempts);
    },
  });
  counterOnScrape(
    registry,
    { name: 'webhook_dispatcher_restarts_total', help: 'Times the dispatcher loop stalled and was restarted' },
    () => stats().restarts,
  );
}
