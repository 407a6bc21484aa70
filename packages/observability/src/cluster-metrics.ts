// One scrape for the whole cluster: the worker that answers GET /metrics asks the primary, the primary asks every
// serving worker for its samples over the cluster's IPC channel and sums them with its own (prom-client's
// AggregatorRegistry does the summing), and the text goes back to the worker that asked.
import { AggregatorRegistry, type Registry } from 'prom-client';

type Samples = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;
/** Messages on the cluster channel; the `metrics:` prefix keeps them apart from the cluster's own. */
export type MetricsMessage =
  | { type: 'metrics:scrape'; id: number }
  | { type: 'metrics:text'; id: number; text?: string; error?: string }
  | { type: 'metrics:collect'; id: number }
  | { type: 'metrics:samples'; id: number; samples: Samples };

interface ClusterWorkerLike {
  send(message: MetricsMessage): boolean;
}

/** A worker that does not answer within this time is left out of the scrape rather than failing it. */
const COLLECT_TIMEOUT_MS = 2_000;

/**
 * The primary's side. `handle` takes each message from a worker and says whether it was a metrics message;
 * `workers` lists the ones serving now.
 */
export function primaryMetrics(registry: Registry, workers: () => Iterable<ClusterWorkerLike>) {
  let next = 0;
  const waiting = new Map<number, (samples: Samples) => void>();
  const collect = (worker: ClusterWorkerLike) =>
    new Promise<Samples>((resolve) => {
      const id = ++next;
      const timer = setTimeout(() => {
        waiting.delete(id);
        resolve([]);
      }, COLLECT_TIMEOUT_MS);
      waiting.set(id, (samples) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve(samples);
      });
      if (!worker.send({ type: 'metrics:collect', id })) waiting.get(id)?.([]);
    });
  const scrape = async (): Promise<string> => {
    const [own, ...others] = await Promise.all([registry.getMetricsAsJSON(), ...[...workers()].map(collect)]);
    // Workers' start times cannot be summed (prom-client omits them): the primary's own stands for the server.
    const served = others.map((samples) => samples.filter((m) => m.name !== 'process_start_time_seconds'));
    return AggregatorRegistry.aggregate([own, ...served]).metrics();
  };
  return {
    scrape,
    handle(from: ClusterWorkerLike, message: MetricsMessage | { type?: unknown }): boolean {
      if (message.type === 'metrics:samples') {
        const m = message as Extract<MetricsMessage, { type: 'metrics:samples' }>;
        waiting.get(m.id)?.(m.samples);
        return true;
      }
      if (message.type !== 'metrics:scrape') return false;
      const { id } = message as Extract<MetricsMessage, { type: 'metrics:scrape' }>;
      scrape().then(
        (text) => from.send({ type: 'metrics:text', id, text }),
        (error: Error) => from.send({ type: 'metrics:text', id, error: error.message }),
      );
      return true;
    },
  };
}

/**
 * A worker's side: answers the primary's collect requests with this process's samples, and `scrape()` asks the
 * primary for the whole cluster's text. `stop` removes the listener.
 */
export function workerMetrics(registry: Registry, channel: NodeJS.Process = process) {
  let next = 0;
  const waiting = new Map<number, (m: Extract<MetricsMessage, { type: 'metrics:text' }>) => void>();
  const onMessage = (message: MetricsMessage) => {
    if (message?.type === 'metrics:collect') {
      registry.getMetricsAsJSON().then(
        (samples) => channel.send?.({ type: 'metrics:samples', id: message.id, samples } satisfies MetricsMessage),
        () => channel.send?.({ type: 'metrics:samples', id: message.id, samples: [] } satisfies MetricsMessage),
      );
    } else if (message?.type === 'metrics:text') waiting.get(message.id)?.(message);
  };
  channel.on('message', onMessage);
  return {
    scrape: () =>
      new Promise<string>((resolve, reject) => {
        const id = ++next;
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error('the primary process did not answer the metrics scrape'));
        }, COLLECT_TIMEOUT_MS * 2);
        waiting.set(id, (m) => {
          clearTimeout(timer);
          waiting.delete(id);
          if (m.text !== undefined) resolve(m.text);
          else reject(new Error(m.error ?? 'metrics scrape failed'));
        });
        channel.send?.({ type: 'metrics:scrape', id } satisfies MetricsMessage);
      }),
    stop: () => void channel.off('message', onMessage),
  };
}
