// Realtime (/realtime/v1/websocket) limits that protect the process: connections per client address, channels
// per connection, events per second per connection, and the largest broadcast or presence payload; how long and how
// many stored broadcasts are kept for replay; who may join public channels (docs/realtime.md).
import * as v from 'valibot';
import { PUBLIC_CHANNELS_SETTINGS } from '@auction-ops/realtime';
import { positiveInt } from './fields.js';

export const realtimeSettings = {
  REALTIME_MAX_CONNECTIONS_PER_IP: v.optional(positiveInt, '100'),
  REALTIME_MAX_CHANNELS_PER_CONNECTION: v.optional(positiveInt, '100'),
  REALTIME_MAX_EVENTS_PER_SECOND: v.optional(positiveInt, '100'),
  REALTIME_MAX_PAYLOAD_BYTES: v.optional(positiveInt, '262144'),
  REALTIME_REPLAY_MAX_AGE_SECONDS: v.optional(positiveInt, '86400'),
  REALTIME_REPLAY_MAX_MESSAGES_PER_TOPIC: v.optional(positiveInt, '1000'),
  // Who may join public channels: `signed-in` (ours, the default), `anyone` (Supabase's), `off` (private only).
  REALTIME_PUBLIC_CHANNELS: v.optional(
    v.picklist(PUBLIC_CHANNELS_SETTINGS, 'must be signed-in, anyone or off'),
    'signed-in',
  ),
};
