// The map of an auction's data: which tables hold its rows and how each row is found (its auction_id, or its
// parent's), what a restore keeps, what is left out and why. test/export-import.test.ts ("covers every table the
// catalog holds per-auction rows in", through uncoveredTables in scope-catalog.ts) fails when the catalog has a
// table with auction_id (or a foreign-key path to auctions) that is neither mapped nor left out here.

/** How a table's rows of one auction are found. */
export type Scope =
  | { kind: 'self' } // public.auctions: id = the auction
  | { kind: 'auction' } // auction_id = the auction
  | { kind: 'parent'; column: string; parent: string; parentColumn: string } // column in (parent's rows)
  | { kind: 'objects' }; // storage.objects under `<auction_id>/` or linked to it (domain.auction_object_links)

/**
 * data: exported, imported and put back by a restore. log: a record of what happened (deliveries, the event
 * outbox): exported and imported, but a restore keeps today's rows, so receivers are not sent old deliveries again.
 * secret: exported only when asked, encrypted.
 */
type TableRole = 'data' | 'log' | 'secret';

export interface TableEntry {
  table: string;
  scope: Scope;
  role: TableRole;
}

const auction = { kind: 'auction' } as const;
const parent = (column: string, parentTable: string, parentColumn = 'id'): Scope => ({
  kind: 'parent',
  column,
  parent: parentTable,
  parentColumn,
});

/** Parents before children (imports run with triggers off, so the order is for readers and deletes). */
export const TABLES: readonly TableEntry[] = [
  { table: 'public.auctions', scope: { kind: 'self' }, role: 'data' },
  { table: 'public.auction_branding', scope: auction, role: 'data' },
  { table: 'public.auction_members', scope: auction, role: 'data' },
  { table: 'public.auction_invitations', scope: auction, role: 'data' },
  { table: 'public.locations', scope: auction, role: 'data' },
  { table: 'public.location_assignments', scope: auction, role: 'data' },
  { table: 'public.submission_types', scope: auction, role: 'data' },
  { table: 'public.location_submission_types', scope: auction, role: 'data' },
  { table: 'public.lot_submissions', scope: auction, role: 'data' },
  { table: 'public.lot_submission_entries', scope: auction, role: 'data' },
  { table: 'public.defect_categories', scope: auction, role: 'data' },
  { table: 'public.quality_inspections', scope: auction, role: 'data' },
  { table: 'public.quality_defects', scope: auction, role: 'data' },
  { table: 'public.problem_reports', scope: auction, role: 'data' },
  { table: 'public.problem_facts', scope: auction, role: 'data' },
  { table: 'public.potential_causes', scope: auction, role: 'data' },
  { table: 'public.problem_actions', scope: auction, role: 'data' },
  { table: 'public.channels', scope: auction, role: 'data' },
  { table: 'public.messages', scope: auction, role: 'data' },
  { table: 'public.message_reactions', scope: auction, role: 'data' },
  { table: 'public.channel_read_state', scope: auction, role: 'data' },
  { table: 'public.channel_notification_preferences', scope: auction, role: 'data' },
  { table: 'notifications.pending_notices', scope: parent('location_id', 'public.locations'), role: 'data' },
  { table: 'public.datasets', scope: auction, role: 'data' },
  { table: 'public.saved_reports', scope: auction, role: 'data' },
  { table: 'public.query_conversations', scope: auction, role: 'data' },
  {
    table: 'public.query_conversation_messages',
    scope: parent('conversation_id', 'public.query_conversations'),
    role: 'data',
  },
  { table: 'public.webhook_endpoints', scope: auction, role: 'data' },
  { table: 'webhooks.endpoint_secrets', scope: parent('endpoint_id', 'public.webhook_endpoints'), role: 'secret' },
  { table: 'public.webhook_deliveries', scope: auction, role: 'log' },
  { table: 'public.webhook_delivery_attempts', scope: auction, role: 'log' },
  { table: 'public.event_outbox', scope: auction, role: 'log' },
  { table: 'public.query_audit_log', scope: auction, role: 'log' },
  { table: 'notifications.push_jobs', scope: auction, role: 'log' },
  { table: 'storage.objects', scope: { kind: 'objects' }, role: 'data' },
];

/** Tables with auction_id (or a path to auctions) that are deliberately not carried, and why. */
export const LEFT_OUT: Readonly<Record<string, string>> = {
  'analytics.submission_hours': 'a rollup: rebuilt from the rows (analytics.rebuild) after an import or restore',
  'analytics.submission_type_hours': 'a rollup: rebuilt from the rows',
  'analytics.defect_hours': 'a rollup: rebuilt from the rows',
  'analytics.defect_days': 'a rollup: rebuilt from the rows',
  'analytics.channel_message_days': 'a rollup: rebuilt from the rows',
  'analytics.channel_author_days': 'a rollup: rebuilt from the rows',
  'reporting_data.imports': 'bookkeeping of a CSV import in flight; an export carries finished datasets',
  'reporting_data.report_cache': 'a cache of report results, recomputed on demand',
  'domain.auction_object_links': "derived on import from the archive's rows and carried objects",
};

/**
 * The columns whose URLs may name stored objects (domain/0032 checks and links them as rows are written): the
 * archive check reads them to know which carried objects its rows name, and an export from a snapshot older than
 * 0032 chooses objects by them. `imagesOnly`: only rows whose message_type is 'image' hold a URL there.
 */
export const OBJECT_URL_COLUMNS: readonly { table: string; column: string; imagesOnly?: true }[] = [
  { table: 'public.auction_branding', column: 'logo_url' },
  { table: 'public.lot_submissions', column: 'image_url' },
  { table: 'public.lot_submission_entries', column: 'image_url' },
  { table: 'public.messages', column: 'content', imagesOnly: true },
];

/**
 * The stored object (`bucket/name`) a URL names, as domain.storage_url_object reads it: any host, the object and
 * render paths, the name percent-decoded (kept as written when that is not UTF-8). Undefined for other URLs.
 */
export function storageUrlObject(url: string): string | undefined {
  const m =
    /\/storage\/v1\/(?:object|render\/image)\/(?:public\/|authenticated\/|sign\/)?([a-z0-9][a-z0-9._-]{0,62})\/([^?#]+)/.exec(
      url,
    );
  if (!m) return undefined;
  let name = m[2]!;
  if (name.includes('%'))
    try {
      name = decodeURIComponent(name);
    } catch {
      // Not valid UTF-8 once decoded (or a stray %): kept as written, as the SQL function keeps it.
    }
  return `${m[1]}/${name}`;
}

/** Dataset rows live in one table per dataset (reporting_data.<datasets.table_name>), found through datasets. */
export const DATASET_SCHEMA = 'reporting_data';
