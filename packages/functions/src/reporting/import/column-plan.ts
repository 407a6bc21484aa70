// From the header, a sample of rows and the options to the columns of the dataset's table: names (snake_case
// unless mapped), types (detected unless mapped), calculated date parts, and the date order of each column.
import { functionErrors } from '../../errors.js';
import type { DatasetColumn } from '../dataset-access.js';
import { COLUMN_NAME, ColumnEvidence, type DateOrder, type DatePart } from './csv-types.js';
import type { ImportOptions } from './import-options.js';

export interface PlannedColumn extends DatasetColumn {
  /** Index of the CSV field it comes from (for a calculated field: of its source column). */
  index: number;
  order: DateOrder;
  part?: DatePart;
}

function snakeCase(header: string, position: number): string {
  const name = header
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 60);
  if (name === '') return `column_${position + 1}`;
  return /^[0-9]/.test(name) ? `c_${name}` : name;
}

export function planColumns(
  header: readonly string[],
  sample: readonly string[][],
  options: ImportOptions,
  existing?: readonly DatasetColumn[],
): PlannedColumn[] {
  const mapping = new Map((options.columnMapping ?? []).map((m) => [m.source, m]));
  for (const source of mapping.keys())
    if (!header.includes(source))
      throw functionErrors.validation(`column_mapping names ${source}, which is not in the file`, 'column_mapping');
  const used = new Set<string>();
  const columns: PlannedColumn[] = [];
  header.forEach((source, index) => {
    const m = mapping.get(source);
    if (m?.skip) return;
    let name = m?.target ?? snakeCase(source, index);
    if (used.has(name)) {
      if (m?.target) throw functionErrors.validation(`two columns are named ${name}`, 'column_mapping');
      let n = 2;
      while (used.has(`${name}_${n}`)) n++;
      name = `${name}_${n}`;
    }
    used.add(name);
    const evidence = new ColumnEvidence();
    for (const row of sample) evidence.add(row[index] ?? '');
    const forced = evidence.forcedOrder();
    const order: DateOrder =
      options.dateOrder !== 'auto' ? options.dateOrder : forced && forced !== 'conflict' ? forced : 'MDY';
    const known = existing?.find((c) => c.name === name && !c.calculated);
    const type = m?.type ?? known?.type ?? evidence.type();
    columns.push({ name, source, index, type, order, nullable: true, calculated: false });
  });
  for (const calc of options.calculatedFields) {
    const from = columns.find((c) => c.name === calc.source || c.source === calc.source);
    if (!from)
      throw functionErrors.validation(
        `calculated field ${calc.name} names an unknown column ${calc.source}`,
        'calculated_fields',
      );
    if (from.type !== 'date' && from.type !== 'timestamp')
      throw functionErrors.validation(
        `calculated field ${calc.name} needs a date or timestamp column`,
        'calculated_fields',
      );
    if (used.has(calc.name)) throw functionErrors.validation(`two columns are named ${calc.name}`, 'calculated_fields');
    used.add(calc.name);
    columns.push({
      name: calc.name,
      source: from.source,
      index: from.index,
      type: calc.part === 'date' ? 'date' : 'integer',
      order: from.order,
      part: calc.part,
      nullable: true,
      calculated: true,
    });
  }
  if (columns.length === 0) throw functionErrors.validation('the file has no columns to import', 'file');
  for (const c of columns) if (!COLUMN_NAME.test(c.name)) throw functionErrors.validation(`bad column name ${c.name}`);
  if (existing && options.mode === 'append') assertSameColumns(columns, existing);
  return columns;
}

function assertSameColumns(columns: readonly PlannedColumn[], existing: readonly DatasetColumn[]): void {
  const shape = (cs: readonly DatasetColumn[]) => cs.map((c) => `${c.name}:${c.type}`).join(',');
  if (shape(columns) !== shape(existing))
    throw functionErrors.validation(
      'the file does not match the dataset columns; append needs the same columns (use replace to change them)',
      `expected ${shape(existing)}, got ${shape(columns)}`,
    );
}
