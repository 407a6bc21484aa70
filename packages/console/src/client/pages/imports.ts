// CSV imports: every dataset import-csv has loaded or is loading (public.datasets: status, rows, columns), newest
// change first. A plain /rest/v1 read: super admins see every auction's datasets through the tenant policies.
import { countedTable, h, markReady, notice, when } from '../dom.js';
import { rest } from '../session.js';

interface DatasetRow {
  name: string;
  status: string;
  row_count: number;
  columns: unknown[];
  updated_at: string;
  auctions: { name: string } | null;
}

// import-csv sends an import's errors to the importer's event stream and returns the dataset to its previous
// status; the table keeps no error text, so the page says what the status means.
const MEANING: Record<string, string> = {
  pending: 'never loaded',
  importing: 'an import is running',
  ready: 'loaded',
  failed: 'the first import failed; nothing was loaded',
};

export async function renderImports(main: HTMLElement): Promise<void> {
  const { data, error } = await (await rest())
    .from('datasets')
    .select('name, status, row_count, columns, updated_at, auctions(name)')
    .order('updated_at', { ascending: false })
    .limit(200);
  if (error) throw new Error(error.message);
  const datasets = (data ?? []) as unknown as DatasetRow[];
  const failed = datasets.filter((d) => d.status === 'failed').length;
  main.replaceChildren(
    h('h1', {}, 'CSV imports'),
    ...(failed > 0 ? [notice(`${failed} dataset${failed === 1 ? '' : 's'} failed to import.`, 'alert')] : []),
    countedTable(
      datasets,
      'dataset',
      'No CSV imports yet.',
      ['Auction', 'Dataset', 'Status', 'Rows', 'Columns', 'Last change', 'Meaning'],
      (d) => [
        d.auctions?.name ?? '—',
        d.name,
        d.status,
        d.row_count,
        Array.isArray(d.columns) ? d.columns.length : 0,
        when(d.updated_at),
        MEANING[d.status] ?? d.status,
      ],
    ),
  );
  markReady('imports');
}
