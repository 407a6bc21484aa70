// The OpenTelemetry SDK set up from the standard OTEL_* variables: an OTLP exporter over HTTP (protobuf or JSON),
// the sampler, the service name, spans sent in batches. Loaded only when tracing is configured.
import type { Sampler } from '@opentelemetry/sdk-trace';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter as JsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';

/** The standard variables, validated by the server's configuration. */
export interface TracingSettings {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' | 'http/json';
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: 'http/protobuf' | 'http/json';
  OTEL_SERVICE_NAME: string;
  OTEL_TRACES_SAMPLER: string;
  OTEL_TRACES_SAMPLER_ARG?: number;
  /** The batch span processor's: milliseconds between exports, an export's timeout, spans queued, spans per export. */
  OTEL_BSP_SCHEDULE_DELAY?: number;
  OTEL_BSP_EXPORT_TIMEOUT?: number;
  OTEL_BSP_MAX_QUEUE_SIZE?: number;
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE?: number;
}

export function samplerOf(name: string, ratio = 1): Sampler {
  const root = name.endsWith('always_off')
    ? new AlwaysOffSampler()
    : name.endsWith('traceidratio')
      ? new TraceIdRatioBasedSampler(ratio)
      : new AlwaysOnSampler();
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

/** The traces URL: the signal-specific variable as given, else the general endpoint with /v1/traces (as the spec says). */
export function tracesUrl(s: TracingSettings): string {
  if (s.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return s.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return `${(s.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').replace(/\/$/, '')}/v1/traces`;
}

export function createTracerProvider(s: TracingSettings): TracerProvider {
  const protocol = s.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? s.OTEL_EXPORTER_OTLP_PROTOCOL;
  const Exporter = protocol === 'http/json' ? JsonExporter : ProtobufExporter;
  // OTEL_EXPORTER_OTLP_HEADERS and the timeout variables are read by the exporter itself.
  const exporter = new Exporter({ url: tracesUrl(s) });
  return new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': s.OTEL_SERVICE_NAME }),
    sampler: samplerOf(s.OTEL_TRACES_SAMPLER, s.OTEL_TRACES_SAMPLER_ARG),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        scheduledDelayMillis: s.OTEL_BSP_SCHEDULE_DELAY,
        exportTimeoutMillis: s.OTEL_BSP_EXPORT_TIMEOUT,
        maxQueueSize: s.OTEL_BSP_MAX_QUEUE_SIZE,
        maxExportBatchSize: s.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
      }),
    ],
  });
}
