// The write cases of domain-rest-matrix.test.ts: for every table of schema public, a POST of a row of auction A and a
// PATCH and a DELETE of A's rows, each as the six roles. Every request is sent with `Prefer: tx=rollback`, so it
// answers as it would and keeps nothing: the fixture stays as it was for every other case, in any order.
//
// Outcomes per role (owner admin member other anon super), as the table's policies and grants say: a status for a
// POST (201 written; 403 refused, 42501; 401 for anon; 409 the policy let it through and a key refused it: the
// row exists, or rows of another table still refer to it), and for PATCH and DELETE `rows` (A's rows changed),
// `none` (none the role may change: the policy's USING hid them) or a status. A table new to schema public needs
// its line here (the coverage test at the end of domain-rest-matrix.test.ts fails until it has one), written from
// its policies and grants, as the GET cases are.

/** The fixture's ids by name, filled by the test's beforeAll before any case runs. */
export type Ids = Record<string, string | undefined>;

type Values = (ids: Ids) => Record<string, unknown>;

export interface Write {
  readonly table: string;
  /** Outcomes by role of the POST, the PATCH and the DELETE. */
  readonly post: string;
  readonly update: string;
  readonly delete: string;
  /** `column = ids[key]`: A's rows (or the fixture's row) that the PATCH and the DELETE address. */
  readonly where: readonly [column: string, key: string];
  /** A valid row of auction A (values from the fixture, read when the case runs). */
  readonly row: Values;
  /** The change the PATCH makes. */
  readonly patch: Values;
}

const w = (
  table: string,
  post: string,
  update: string,
  del: string,
  where: readonly [string, string],
  row: Values,
  patch: Values,
): Write => ({ table, post, update, delete: del, where, row, patch });

const A = (ids: Ids) => ids.auction;

export const writes: readonly Write[] = [
  // Tenancy and membership. Members and invitations change through RPCs (invite, accept, change role, remove);
  // branding has one row per auction, so its POST meets the fixture's row (409) wherever the policy allows it.
  w(
    'auctions',
    '201 201 201 201 401 201',
    'rows rows none none 401 rows',
    'rows 403 403 none 401 rows',
    ['id', 'auction'],
    () => ({ name: 'New', slug: 'matrix-new' }),
    () => ({ settings: { timezone: 'UTC' } }),
  ),
  w(
    'auction_branding',
    '409 409 403 403 401 409',
    'rows rows none none 401 rows',
    'rows rows none none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), app_name: 'Other app' }),
    () => ({ app_name: 'A app 2' }),
  ),
  w(
    'auction_members',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), user_id: ids.other, role: 'team_member' }),
    () => ({ role: 'admin' }),
  ),
  w(
    'auction_invitations',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), email: 'x@matrix.test', role: 'team_member', token_hash: 'h' }),
    () => ({ revoked_at: '2030-01-01T00:00:00Z' }),
  ),
  w(
    'users',
    '403 403 403 403 401 403',
    'none none rows none 401 none',
    '403 403 403 403 401 403',
    ['id', 'member'],
    () => ({ id: '00000000-0000-4000-8000-00000000aaaa', email: 'x@matrix.test' }),
    () => ({ full_name: 'Renamed' }),
  ),
  w(
    'super_admins',
    '403 403 403 403 401 201',
    '403 403 403 403 401 403',
    'none none none none 401 rows',
    ['user_id', 'super'],
    (ids) => ({ user_id: ids.other }),
    () => ({ granted_by: null }),
  ),
  // Locations and submissions.
  w(
    'locations',
    '201 201 403 403 401 201',
    'rows rows none none 401 rows',
    'rows rows none none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), name: 'New lot' }),
    () => ({ name: 'Lot 2' }),
  ),
  w(
    'location_assignments',
    '201 201 403 403 401 201',
    'rows rows none none 401 rows',
    'rows rows none none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ location_id: ids.unassigned, user_id: ids.member }),
    (ids) => ({ user_id: ids.member }),
  ),
  w(
    'submission_types',
    '201 201 403 403 401 201',
    'rows rows none none 401 rows',
    '409 409 none none 401 409',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), name: 'Kept' }),
    () => ({ description: 'sold lots' }),
  ),
  w(
    'location_submission_types',
    '201 201 403 403 401 201',
    'rows rows none none 401 rows',
    'rows rows none none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ location_id: ids.unassigned, submission_type_id: ids.type, display_order: 1 }),
    () => ({ display_order: 2 }),
  ),
  w(
    'lot_submissions',
    '201 201 201 403 401 201',
    'rows rows rows none 401 rows',
    'rows rows rows none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), location_id: ids.location }),
    () => ({ notes: 'recount' }),
  ),
  w(
    'lot_submission_entries',
    '201 201 201 403 401 201',
    'rows rows rows none 401 rows',
    'rows rows rows none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ submission_id: ids.submission, submission_type_id: ids.type, car_count: 1 }),
    () => ({ car_count: 5 }),
  ),
  // Inspections.
  w(
    'quality_inspections',
    '201 201 201 403 401 201',
    'rows rows rows none 401 rows',
    'rows rows rows none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), location_id: ids.location, vin_number: '1HGCM82633A004353', barcode: 'X' }),
    () => ({ notes: 'scratched' }),
  ),
  w(
    'quality_defects',
    '201 201 201 403 401 201',
    'rows rows rows none 401 rows',
    'rows rows rows none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ inspection_id: ids.inspection, category_id: ids.sharedCategory, notes: 'hood' }),
    () => ({ notes: 'door, left' }),
  ),
  w(
    'defect_categories',
    '201 201 403 403 401 201',
    'rows rows none none 401 rows',
    'rows rows none none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), name: 'Rust' }),
    () => ({ display_order: 5 }),
  ),
  // Problem reports.
  w(
    'problem_reports',
    '201 201 201 403 401 201',
    'rows rows rows none 401 rows',
    'rows rows rows none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), issue_name: 'Leak', area: 'Wash', location_id: ids.location }),
    () => ({ area: 'Yard 2' }),
  ),
  w(
    'problem_facts',
    '409 409 409 403 401 409',
    'rows rows rows none 401 rows',
    'rows rows rows none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ problem_id: ids.problem, who: 'driver' }),
    () => ({ what: 'flat tyre' }),
  ),
  w(
    'potential_causes',
    '201 201 201 403 401 201',
    'rows rows rows none 401 rows',
    'rows rows rows none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ problem_id: ids.problem, cause_text: 'glass' }),
    () => ({ cause_text: 'screws' }),
  ),
  w(
    'problem_actions',
    '201 201 201 403 401 201',
    'rows rows rows none 401 rows',
    'rows rows rows none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ problem_id: ids.problem, issue: 'fence' }),
    () => ({ countermeasure: 'magnet sweep' }),
  ),
  // Chat.
  w(
    'channels',
    '201 201 403 403 401 201',
    'rows rows none none 401 rows',
    'rows rows none none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), name: 'yard', description: 'd' }),
    () => ({ description: 'everyone' }),
  ),
  w(
    'messages',
    '201 201 201 403 401 201',
    'rows rows rows none 401 rows',
    'rows rows none none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), channel_id: ids.channel, content: 'x', message_type: 'text' }),
    () => ({ content: 'edited' }),
  ),
  w(
    'message_reactions',
    '201 201 201 403 401 201',
    'none none none none 401 none',
    'rows rows rows none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ message_id: ids.message, emoji: '🎉' }),
    () => ({ emoji: '👀' }),
  ),
  w(
    'channel_read_state',
    '409 201 201 403 401 201',
    'rows none none none 401 none',
    'rows none none none 401 none',
    ['auction_id', 'auction'],
    (ids) => ({ channel_id: ids.channel }),
    () => ({ last_read_at: '2030-01-01T00:00:00Z' }),
  ),
  w(
    'channel_notification_preferences',
    '409 201 201 403 401 403',
    'rows none none none 401 none',
    'rows none none none 401 none',
    ['auction_id', 'auction'],
    (ids) => ({ channel_id: ids.channel, preference: 'all' }),
    () => ({ preference: 'none' }),
  ),
  // Reporting.
  w(
    'datasets',
    '201 201 403 403 401 201',
    'rows rows none none 401 rows',
    'rows rows none none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), name: 'Stock' }),
    () => ({ description: 'sales by day' }),
  ),
  w(
    'saved_reports',
    '201 201 201 403 401 201',
    'rows rows none none 401 rows',
    'rows rows none none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), dataset_id: ids.dataset, name: 'Low', sql: 'select 2' }),
    () => ({ name: 'Top 10' }),
  ),
  w(
    'query_audit_log',
    '201 201 201 403 401 403',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), dataset_id: ids.dataset, natural_language_query: 'q', sql: 'select 1' }),
    () => ({ row_count: 1 }),
  ),
  w(
    'query_conversations',
    '201 201 201 403 401 403',
    'rows none none none 401 none',
    'rows none none none 401 none',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), dataset_id: ids.dataset }),
    () => ({ updated_at: '2030-01-01T00:00:00Z' }),
  ),
  w(
    'query_conversation_messages',
    '201 403 403 403 401 403',
    'rows none none none 401 none',
    'rows none none none 401 none',
    ['conversation_id', 'conversation'],
    (ids) => ({ conversation_id: ids.conversation, role: 'user', content: 'more?' }),
    () => ({ content: 'top lots, by day?' }),
  ),
  // Per-user records of A's owner.
  w(
    'email_log',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    ['user_id', 'owner'],
    () => ({ to_email: 'x@matrix.test', template: 't', status: 'sent' }),
    () => ({ status: 'failed' }),
  ),
  w(
    'user_push_tokens',
    '201 201 201 201 401 201',
    'rows none none none 401 none',
    'rows none none none 401 none',
    ['user_id', 'owner'],
    () => ({ token: 'ExponentPushToken[new]', platform: 'android' }),
    () => ({ device_name: 'phone' }),
  ),
  // Events and webhooks: the outbox and the catalogue are written by triggers and migrations alone.
  w(
    'event_outbox',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    ['auction_id', 'auction'],
    (ids) => ({ auction_id: A(ids), event_type: ids.eventType, data: {} }),
    () => ({ data: {} }),
  ),
  w(
    'event_types',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    ['name', 'eventType'],
    () => ({
      name: 'gate.opened',
      area: 'gates',
      emitted_when: 'never',
      fields: {},
      sample: {},
      since_version: '0.5.0',
    }),
    () => ({ area: 'renamed' }),
  ),
  w(
    'webhook_endpoints',
    '201 201 403 403 401 201',
    'rows rows none none 401 rows',
    'rows rows none none 401 rows',
    ['auction_id', 'auction'],
    (ids) => ({
      auction_id: A(ids),
      url: 'https://hooks.matrix.test/b',
      events: ['message.created'],
      secret: 'matrix-secret-9876543210',
    }),
    () => ({ description: 'ops' }),
  ),
  w(
    'webhook_deliveries',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    ['auction_id', 'auction'],
    (ids) => ({ endpoint_id: ids.endpoint, auction_id: A(ids), event_type: 'message.created', payload: {} }),
    () => ({ last_error: 'x' }),
  ),
  w(
    'webhook_delivery_attempts',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    '403 403 403 403 401 403',
    ['auction_id', 'auction'],
    (ids) => ({
      delivery_id: ids.delivery,
      endpoint_id: ids.endpoint,
      auction_id: A(ids),
      event_type: 'message.created',
      attempt: 2,
      status: 'failed',
    }),
    () => ({ error_message: 'x' }),
  ),
];
