// Tracing for the server, started only when an OTLP endpoint is configured (the server imports this module only
// then, so without it no OpenTelemetry code is loaded): request spans, statement spans, background job traces.
import { type Context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type postgres from 'postgres';
import { createTracerProvider, type TracingSettings } from './tracer-provider.js';
import { requestTracing } from './request-spans.js';
import { traceStatements } from './statement-spans.js';

export type { TracingSettings } from './tracer-provider.js';
export { samplerOf, tracesUrl } from './tracer-provider.js';
export { statementText } from './statement-spans.js';
export { stagesOf } from './request-spans.js';

/** One context manager per process: the statement wrapper is per process too. */
let contexts: AsyncLocalStorageContextManager | undefined;

export interface Tracing {
  middleware: ReturnType<typeof requestTracing>;
  /** Runs one unit of background work (a webhook delivery, a push job) as its own trace. */
  traceJob<T>(name: string, work: () => Promise<T>): Promise<T>;
  /** Sends the spans still buffered and stops. */
  close(): Promise<void>;
}

export function startTracing(settings: TracingSettings, pools: postgres.Sql[]): Tracing {
  contexts ??= new AsyncLocalStorageContextManager().enable();
  const manager = contexts;
  const provider = createTracerProvider(settings);
  const tracer = provider.getTracer('auction-ops');
  const run = <T>(context: Context, fn: () => T): T => manager.with(context, fn);
  // Any pool's query class is the one class of the postgres module; an unawaited query never runs.
  const stops = pools.slice(0, 1).map((sql) => traceStatements(sql`select 1`, tracer, () => manager.active()));
  return {
    middleware: requestTracing(tracer, run),
    async traceJob(name, work) {
      const span = tracer.startSpan(name, { kind: SpanKind.CONSUMER }, ROOT_CONTEXT);
      try {
        return await run(trace.setSpan(ROOT_CONTEXT, span), work);
      } catch (error) {
        span.setStatus({ code: SpanStatusCode.ERROR });
        throw error;
      } finally {
        span.end();
      }
    },
    async close() {
      for (const stop of stops) stop();
      await provider.shutdown();
    },
  };
}
