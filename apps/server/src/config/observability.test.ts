import { describe, expect, it } from 'vitest';
import { loadConfig } from './index.js';

describe('metrics and tracing settings', () => {
  it('defaults to metrics on, tracing off, protobuf, parent-based sampling', () => {
    const c = loadConfig({});
    expect(c.METRICS_ENABLED).toBe(true);
    expect(c.METRICS_TOKEN).toBeUndefined();
    expect(c.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(c.OTEL_EXPORTER_OTLP_PROTOCOL).toBe('http/protobuf');
    expect(c.OTEL_SERVICE_NAME).toBe('auction-ops');
    expect(c.OTEL_TRACES_SAMPLER).toBe('parentbased_always_on');
  });

  it('reads the standard variables', () => {
    const c = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(c.OTEL_EXPORTER_OTLP_PROTOCOL).toBe('http/json');
    expect(c.OTEL_TRACES_SAMPLER_ARG).toBe(0.25);
  });

  it.each([
    ['METRICS_TOKEN', 'short', /METRICS_TOKEN=\(value not shown\) must be at least 16 characters/],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector', /must be a URL/],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc', /must be http\/protobuf or http\/json/],
    ['OTEL_TRACES_SAMPLER', 'sometimes', /must be one of the standard samplers/],
    ['OTEL_TRACES_SAMPLER_ARG', '1.5', /must be a number from 0 to 1/],
    ['METRICS_ENABLED', 'maybe', /must be true or false/],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});
