// The Expo client against a fake Expo server on loopback: chunks of 100 with tickets mapped back in order, the
// access token, 429/5xx retried with backoff, failures surfaced as ProviderError tickets.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createExpoProvider } from './expo-provider.js';
import { startFakeExpo, type FakeExpo } from './testing/fake-expo-server.js';

let expo: FakeExpo;
beforeAll(async () => {
  expo = await startFakeExpo();
});
afterAll(async () => {
  await expo.close();
});

const messages = (n: number, prefix = 't') =>
  Array.from({ length: n }, (_, i) => ({ to: `ExponentPushToken[${prefix}${i}]`, title: 'T', body: 'B' }));

describe('createExpoProvider', () => {
  it('sends 250 messages as requests of 100, 100 and 50 and maps every ticket to its token', async () => {
    const before = expo.requests.length;
    expo.unregistered.add('ExponentPushToken[c42]');
    const provider = createExpoProvider({ url: expo.url, accessToken: 'expo-secret', concurrency: 2 });
    const tickets = await provider.send(messages(250, 'c'));
    const requests = expo.requests.slice(before);
    expect(requests.map((r) => r.messages.length).sort((a, b) => b - a)).toEqual([100, 100, 50]);
    expect(requests.every((r) => r.authorization === 'Bearer expo-secret')).toBe(true);
    expect(tickets.map((t) => t.token)).toEqual(messages(250, 'c').map((m) => m.to));
    expect(tickets.filter((t) => t.status === 'ok').length).toBe(249);
    expect(tickets[42]).toEqual({
      token: 'ExponentPushToken[c42]',
      status: 'error',
      error: 'DeviceNotRegistered',
      message: '"ExponentPushToken[c42]" is not a registered push notification recipient',
    });
  });

  it('sends no Authorization header without an access token', async () => {
    const before = expo.requests.length;
    await createExpoProvider({ url: expo.url }).send(messages(1));
    expect(expo.requests[before].authorization).toBeUndefined();
  });

  it('retries 429 and 5xx answers with backoff and then succeeds', async () => {
    const before = expo.requests.length;
    expo.failNext(2, 429);
    const tickets = await createExpoProvider({ url: expo.url, retries: 3, backoffMs: 5 }).send(messages(3));
    expect(expo.requests.slice(before).map((r) => r.status)).toEqual([429, 429, 200]);
    expect(tickets.every((t) => t.status === 'ok')).toBe(true);
  });

  it('surfaces a provider that keeps failing as ProviderError tickets after its retries', async () => {
    const before = expo.requests.length;
    expo.failNext(3, 502);
    const tickets = await createExpoProvider({ url: expo.url, retries: 2, backoffMs: 5 }).send(messages(2));
    expect(expo.requests.length - before).toBe(3);
    expect(tickets).toEqual(
      messages(2).map((m) => ({
        token: m.to,
        status: 'error',
        error: 'ProviderError',
        message: 'push provider answered 502',
      })),
    );
  });

  it('reports an unreachable provider as ProviderError tickets', async () => {
    const unreachable = await createExpoProvider({ url: 'http://127.0.0.1:9/push', retries: 0 }).send(messages(1));
    expect(unreachable[0]).toMatchObject({ status: 'error', error: 'ProviderError' });
    expect(unreachable[0].message).toMatch(/^push provider unreachable/);
  });
});
