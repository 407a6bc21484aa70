// The server span of each request: continued from the caller's W3C traceparent, named by the matched route (never
// the raw path), with the REST engine's stages as child spans laid out from its Server-Timing value.
import {
  type Context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';

const propagator = new W3CTraceContextPropagator();
type IncomingHeaders = import('node:http').IncomingHttpHeaders;
// Node's parsed request headers: reading the web request's `headers` instead would make node-server build a
// Headers object for every request (measured at about a tenth of tracing's cost per request).
const nodeHeaders: TextMapGetter<IncomingHeaders> = {
  get: (headers, key) => headers[key],
  keys: (headers) => Object.keys(headers),
};
const webHeaders: TextMapGetter<Headers> = {
  get: (headers, key) => headers.get(key) ?? undefined,
  keys: (headers) => [...headers.keys()],
};
/**
 * The Server-Timing value a route hands to tracing through the context (`c.set(SERVER_TIMING, value)`): reading it
 * back from the finished response would make node-server turn that response's plain header object into Headers.
 */
const SERVER_TIMING = 'serverTiming';

/** Stage name and milliseconds from `parse;dur=0.01, plan;dur=0.02, ...` (read with indexOf: once per request). */
export function stagesOf(serverTiming: string): Array<[string, number]> {
  const stages: Array<[string, number]> = [];
  let at = 0;
  for (;;) {
    const dur = serverTiming.indexOf(';dur=', at);
    if (dur === -1) return stages;
    const end = serverTiming.indexOf(',', dur);
    const name = serverTiming.slice(at, dur).trim();
    stages.push([name, Number(serverTiming.slice(dur + 5, end === -1 ? undefined : end))]);
    if (end === -1) return stages;
    at = end + 1;
  }
}

export function requestTracing(tracer: Tracer, run: <T>(context: Context, fn: () => T) => T): MiddlewareHandler {
  return async (c, next) => {
    const method = c.req.method;
    const incoming = (c.env as { incoming?: { headers: IncomingHeaders } } | undefined)?.incoming;
    const parent = incoming
      ? propagator.extract(ROOT_CONTEXT, incoming.headers, nodeHeaders)
      : propagator.extract(ROOT_CONTEXT, c.req.raw.headers, webHeaders);
    const span = tracer.startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method } },
      parent,
    );
    try {
      await run(trace.setSpan(parent, span), next);
    } finally {
      // Known only once routed: the pattern of the handler that answered, e.g. /rest/v1/:table.
      const route = routePath(c, -1);
      const status = c.res.status;
      span.updateName(`${method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': status });
      if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      const timing = c.get(SERVER_TIMING as never) as string | undefined;
      if (timing && span.isRecording()) stageSpans(tracer, trace.setSpan(parent, span), stagesOf(timing));
      span.end();
    }
  };
}

/** The stages ran back to back and ended just now; a skipped stage (a cached plan: 0 ms) gets no span. */
function stageSpans(tracer: Tracer, parent: Context, stages: Array<[string, number]>): void {
  let at = performance.timeOrigin + performance.now() - stages.reduce((sum, [, ms]) => sum + ms, 0);
  for (const [name, ms] of stages) {
    if (ms > 0) tracer.startSpan(`rest ${name}`, { startTime: at }, parent).end(at + ms);
    at += ms;
  }
}
