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
    expect([c.OTEL_BSP_SCHEDULE_DELAY, c.OTEL_BSP_EXPORT_TIMEOUT]).toEqual([5000, 30000]);
    expect([c.OTEL_BSP_MAX_QUEUE_SIZE, c.OTEL_BSP_MAX_EXPORT_BATCH_SIZE]).toEqual([2048, 512]);
  });

  it('reads the standard variables', () => {
    const c = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '200',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '64',
    });
    expect(c.OTEL_BSP_SCHEDULE_DELAY).toBe(200);
    expect(c.OTEL_BSP_MAX_EXPORT_BATCH_SIZE).toBe(64);
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
    ['OTEL_BSP_MAX_QUEUE_SIZE', '0', /OTEL_BSP_MAX_QUEUE_SIZE/],
  ])('refuses %s=%s', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });
});
