import { describe, expect, it } from 'vitest';
import { decodeBinary, decodeText, encodeText, FrameError, parseVsn } from './protocol.js';

describe('frames', () => {
  it('round-trips both versions', () => {
    const frame = { joinRef: '1', ref: '2', topic: 'realtime:a', event: 'phx_join', payload: { config: {} } };
    for (const vsn of ['1.0.0', '2.0.0'] as const) expect(decodeText(encodeText(frame, vsn), vsn)).toEqual(frame);
  });

  it('decodes a kind 3 broadcast with metadata, and refuses truncated or unknown binary frames', () => {
    const parts = ['', '5', 'realtime:a', 'ev', '{"persist":true}'].map((s) => Buffer.from(s));
    const buf = Buffer.concat([Buffer.from([3, ...parts.map((p) => p.length), 1]), ...parts, Buffer.from('{"x":1}')]);
    expect(decodeBinary(buf)).toEqual({
      joinRef: null,
      ref: '5',
      topic: 'realtime:a',
      event: 'broadcast',
      payload: { type: 'broadcast', event: 'ev', payload: { x: 1 }, meta: { persist: true } },
    });
    expect(() => decodeBinary(buf.subarray(0, 12))).toThrow(FrameError);
    expect(() => decodeBinary(Buffer.from([9, 0, 0, 0, 0, 0, 1]))).toThrow('unsupported binary frame');
  });

  it('refuses frames without a topic or event and unknown versions', () => {
    expect(() => decodeText('[null,null,5,"e",{}]', '2.0.0')).toThrow('frame needs a topic and an event');
    expect(() => decodeText('{"topic":"t"}', '1.0.0')).toThrow(FrameError);
    expect(parseVsn('3.0.0')).toBeUndefined();
    expect(parseVsn(null)).toBe('1.0.0');
  });
});
