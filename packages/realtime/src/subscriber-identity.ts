// Who a subscriber is to Postgres, shared by the change router and its access groups; kept apart so that neither
// imports the other for it.

/** Who a subscriber is to Postgres: the role and claims row-level security sees. */
export interface Identity {
  role: 'anon' | 'authenticated' | 'service_role';
  /** The claims as JSON, as request.jwt.claims. */
  claims: string;
  /** Equal for subscribers that RLS cannot tell apart (same role and claims but for token times). */
  key: string;
  /** The user the claims name (`sub`); empty when none. */
  sub: string;
}
