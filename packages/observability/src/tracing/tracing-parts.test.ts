import { describe, expect, it } from 'vitest';
import { samplerOf, stagesOf, statementText, tracesUrl } from './index.js';

describe('tracing parts', () => {
  it('writes a tagged statement with placeholders where the values go', () => {
    expect(statementText({ strings: ['select * from t where a = ', ' and b = ', ''] })).toBe(
      'select * from t where a = $1 and b = $2',
    );
    expect(statementText({ strings: 'select $1::int' })).toBe('select $1::int');
  });

  it('reads the stages of a Server-Timing header', () => {
    expect(stagesOf('parse;dur=0.01, plan;dur=0.20, compile;dur=0.00, execute;dur=3.50, respond;dur=0.02')).toEqual([
      ['parse', 0.01],
      ['plan', 0.2],
      ['compile', 0],
      ['execute', 3.5],
      ['respond', 0.02],
    ]);
    expect(stagesOf('execute;dur=12.25')).toEqual([['execute', 12.25]]);
    expect(stagesOf('')).toEqual([]);
  });

  it('builds the traces URL as the OTLP specification says', () => {
    const base = {
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' as const,
      OTEL_SERVICE_NAME: 's',
      OTEL_TRACES_SAMPLER: 'always_on',
    };
    expect(tracesUrl({ ...base, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318/' })).toBe('http://c:4318/v1/traces');
    expect(
      tracesUrl({
        ...base,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
        OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://d/x',
      }),
    ).toBe('http://d/x');
  });

  it('chooses the sampler by its standard name', () => {
    expect(samplerOf('always_off').toString()).toMatch(/AlwaysOff/);
    expect(samplerOf('traceidratio', 0.5).toString()).toMatch(/TraceIdRatioBased\{0\.5\}/);
    expect(samplerOf('parentbased_traceidratio', 0.5).toString()).toMatch(/ParentBased\{root=TraceIdRatioBased/);
  });
});
