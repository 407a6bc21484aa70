// Realtime (/realtime/v1/websocket and /realtime/v1/api/broadcast): Phoenix channels for realtime-js with
// postgres_changes under row-level security, broadcast (over HTTP too, stored for replay) and presence, across
// instances on one database.
export { realtimeMigrations, PUBLICATION } from './migrations.js';
export { createChangeCapture, BULK_ORIGIN_PREFIX, type Change } from './change-capture.js';
export {
  createRealtimeService,
  type RealtimeService,
  type RealtimeOptions,
  type UpgradeContext,
} from './realtime-service.js';
export type { RealtimeLimits } from './realtime-hub.js';
export type { RealtimeStats } from './realtime-service.js';
export type { HttpBroadcast, HttpBroadcastRequest, HttpBroadcastResult } from './http-broadcast.js';
export type { RetentionLimits } from './message-store.js';
export { PUBLIC_CHANNELS_SETTINGS, type PublicChannels } from './topic-authorization.js';
export { registerRealtimeMetrics } from './realtime-metrics.js';
