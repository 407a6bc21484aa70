import { describe, expect, it } from 'vitest';
import { parseBatch, parsePersist } from './realtime-broadcast-body.js';

describe('parseBatch', () => {
  it('reads the messages, private only when true, an absent payload as {}', () => {
    const body = {
      messages: [
        { topic: 'room', event: 'e', payload: { a: 1 }, private: true },
        { topic: 't', event: 'f' },
      ],
    };
    expect(parseBatch(JSON.stringify(body))).toEqual([
      { topic: 'room', event: 'e', payload: { a: 1 }, private: true },
      { topic: 't', event: 'f', payload: {}, private: false },
    ]);
  });

  it.each([
    ['not json', 'the body is'],
    ['[]', 'the body is'],
    ['{"messages": []}', 'the body is'],
    ['{"messages": [1]}', 'each message is an object'],
    ['{"messages": [{"topic": "", "event": "e"}]}', 'each message needs a topic and an event'],
    ['{"messages": [{"topic": "t"}]}', 'each message needs a topic and an event'],
  ])('%s is refused', (text, reason) => {
    expect(parseBatch(text)).toContain(reason);
  });
});

describe('parsePersist', () => {
  it.each([
    ['', undefined],
    ['persist=true', {}],
    ['persist=false', undefined],
    ['persist%5Bttl%5D=30', { ttlSeconds: 30 }],
    ['persist%5Bttl%5D=0', 'persist[ttl] is a positive integer'],
    ['persist%5Bttl%5D=soon', 'persist[ttl] is a positive integer'],
  ])('?%s', (query, expected) => {
    expect(parsePersist(new URLSearchParams(query))).toEqual(expected);
  });
});
