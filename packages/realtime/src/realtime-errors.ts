// The reasons realtime gives, in one place: join errors (`phx_reply` status "error", `response.reason`), system
// messages, and refused connections. Clients show them as they are, so each says what to do.
export const reasons = {
  unmatchedTopic: 'unmatched topic: join the channel first',
  invalidToken: (detail: string) => `Invalid token: ${detail}`,
  expiredToken: 'Token has expired',
  signInRequired: 'Sign in to join channels: anonymous connections cannot join',
  notMember: (topic: string) => `You do not have permission to join ${topic}`,
  notAllowedToWrite: (topic: string, extension: string) =>
    `You do not have permission to write ${extension} messages to ${topic}`,
  privateOnly: 'Only private channels can be joined here: subscribe with config.private = true',
  tooManyChannels: (max: number) => `Too many channels: at most ${max} per connection`,
  tooManyMessages: (max: number) => `Too many messages: at most ${max} per second per connection`,
  payloadTooLarge: (max: number) => `Payload too large: at most ${max} bytes`,
  unavailable: 'Realtime is unavailable for a moment: try again',
  tooManyConnections: (max: number) => `Too many connections: at most ${max} per client address`,
  captureUnavailable: (why: string) => `Unable to subscribe to changes: ${why}`,
  captureNotReady: 'Unable to subscribe to changes: the change stream is reconnecting, try again',
  captureLost: 'The change stream was interrupted; rejoin to receive changes again',
  badBinding: (detail: string) => `Invalid postgres_changes binding: ${detail}`,
  badTable: (schema: string, table: string) =>
    `Unable to subscribe to changes of ${schema}.${table}: not a subscribable table`,
  badEvent: 'event must be one of *, INSERT, UPDATE, DELETE',
  badPresence: 'presence event must be track or untrack',
  badFrame: (detail: string) => `Malformed message: ${detail}`,
  bytesNeedVsn2: (event: string) =>
    `A broadcast of event "${event}" carried bytes, which protocol 1.0.0 cannot carry: connect with vsn=2.0.0 to receive it`,
  notMemberAnymore: (topic: string) => `You no longer have permission to read from this Channel topic: ${topic}`,
  badTtl: 'persist ttl is a positive whole number of seconds',
  persistNeedsPrivate: 'Only private channels store messages: send with private=true',
  badReplay: 'Replay params are not valid: config.broadcast.replay is {since: <ms since the epoch>, limit?: <1-25>}',
  replayNeedsPrivate: 'Replay is not allowed for public channels',
  badBroadcastBody: (detail: string) => `Invalid broadcast: ${detail}`,
} as const;
