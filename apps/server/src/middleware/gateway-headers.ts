// The gateway's response headers as kept in the request's context variables (AppEnv) until a route or the gateway
// adds them: its own module so that context.ts need not import response-headers.ts, which imports it.

export interface GatewayHeaders {
  readonly names: readonly string[];
  readonly values: readonly string[];
  /** Added by a middleware after the gateway (rate-limit counters). */
  moreNames?: readonly string[];
  moreValues?: readonly string[];
  taken: boolean;
}
