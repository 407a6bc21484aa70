// Metrics and traces (docs/observability.md): the token Prometheus may scrape /metrics with besides the
// service_role key, and the standard OpenTelemetry variables; tracing is off while no OTLP endpoint is set.
import * as v from 'valibot';
import { bool, nonEmpty, positiveInt, url } from './fields.js';

const ratio = v.pipe(
  v.string(),
  v.regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a number from 0 to 1'),
  v.transform(Number),
);

export const observabilitySettings = {
  // Off: no request metrics are kept and /metrics answers 404 (the benchmark's baseline; not for production).
  METRICS_ENABLED: v.optional(bool, 'true'),
  // A shared secret: long enough not to be guessed.
  METRICS_TOKEN: v.optional(v.pipe(v.string(), v.minLength(16, 'must be at least 16 characters'))),
  OTEL_EXPORTER_OTLP_ENDPOINT: v.optional(url),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: v.optional(url),
  OTEL_EXPORTER_OTLP_PROTOCOL: v.optional(
    v.picklist(['http/protobuf', 'http/json'], 'must be http/protobuf or http/json'),
    'http/protobuf',
  ),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: v.optional(
    v.picklist(['http/protobuf', 'http/json'], 'must be http/protobuf or http/json'),
  ),
  OTEL_SERVICE_NAME: v.optional(nonEmpty, 'auction-ops'),
  OTEL_TRACES_SAMPLER: v.optional(
    v.picklist(
      [
        'always_on',
        'always_off',
        'traceidratio',
        'parentbased_always_on',
        'parentbased_always_off',
        'parentbased_traceidratio',
      ],
      'must be one of the standard samplers (always_on, traceidratio, parentbased_traceidratio, ...)',
    ),
    'parentbased_always_on',
  ),
  OTEL_TRACES_SAMPLER_ARG: v.optional(ratio),
  // The batch span processor's standard variables (the SDK no longer reads them itself).
  OTEL_BSP_SCHEDULE_DELAY: v.optional(positiveInt, '5000'),
  OTEL_BSP_EXPORT_TIMEOUT: v.optional(positiveInt, '30000'),
  OTEL_BSP_MAX_QUEUE_SIZE: v.optional(positiveInt, '2048'),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: v.optional(positiveInt, '512'),
};
