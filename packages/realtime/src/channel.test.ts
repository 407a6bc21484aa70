// A channel's identity across token refreshes: the change router groups subscribers by identity object.
import { describe, expect, it } from 'vitest';
import { Channel } from './channel.js';

const owner = { send() {}, sendRaw() {}, vsn: '2.0.0' as const };
const config = { self: false, ack: false, presenceKey: '', presenceEnabled: false, private: true };
const hour = () => Math.floor(Date.now() / 1000) + 3600;

const channelWith = (claims: Record<string, unknown>) =>
  new Channel(owner, 'realtime:t', '1', config, claims as never, () => {});

describe('a channel given a new token', () => {
  it('keeps its identity object when only the token times change, with the new claims in it', () => {
    const channel = channelWith({ role: 'authenticated', sub: 'u1', exp: hour(), iat: 1 });
    const before = channel.identity;
    const exp = hour() + 60;
    channel.refresh({ role: 'authenticated', sub: 'u1', exp, iat: 2 } as never);
    expect(channel.identity).toBe(before);
    expect(JSON.parse(channel.identity.claims)).toMatchObject({ exp, iat: 2 });
    channel.close();
  });

  it('takes a new identity when other claims change', () => {
    const channel = channelWith({ role: 'authenticated', sub: 'u1', exp: hour() });
    const before = channel.identity;
    channel.refresh({ role: 'authenticated', sub: 'u1', exp: hour(), app_metadata: { tier: 'gold' } } as never);
    expect(channel.identity).not.toBe(before);
    expect(channel.identity.key).not.toBe(before.key);
    expect(JSON.parse(before.claims).app_metadata).toBeUndefined();
    channel.close();
  });
});
