// import-csv's options, checked field by field: a missing or mistyped field is INVALID_REQUEST naming it; a
// well-formed value that breaks a rule (an unknown mode, a batch size out of range) is VALIDATION_ERROR.
import { functionErrors } from '../../errors.js';
import type { ColumnType } from '../dataset-access.js';
import { requireUuid } from '../dataset-access.js';
import { COLUMN_NAME, DATE_PARTS, type DatePart, type DateOrder } from './csv-types.js';

interface ColumnMapping {
  source: string;
  target?: string;
  type?: ColumnType;
  skip: boolean;
}

interface CalculatedField {
  name: string;
  source: string;
  part: DatePart;
}

export interface ImportOptions {
  auctionId: string;
  datasetId?: string;
  name?: string;
  description?: string;
  mode: 'create' | 'append' | 'replace';
  delimiter?: string;
  hasHeader: boolean;
  columnMapping?: ColumnMapping[];
  calculatedFields: CalculatedField[];
  dateOrder: 'auto' | DateOrder;
  batchSize: number;
}

const TYPES: readonly ColumnType[] = ['text', 'integer', 'numeric', 'boolean', 'date', 'timestamp'];

export function parseImportOptions(raw: unknown): ImportOptions {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    throw functionErrors.invalidRequest('options', 'options must be a JSON object');
  const o = raw as Record<string, unknown>;
  const auctionId = requireUuid(o.auction_id, 'auction_id');
  const datasetId =
    o.dataset_id === undefined || o.dataset_id === null ? undefined : requireUuid(o.dataset_id, 'dataset_id');
  const name = optionalString(o, 'name', 200);
  if (!datasetId && (!name || name.trim() === ''))
    throw functionErrors.invalidRequest('name', 'name is required for a new dataset (or give dataset_id)');
  const mode = oneOf(o, 'mode', ['create', 'append', 'replace'] as const) ?? (datasetId ? 'append' : 'create');
  if (mode === 'create' && datasetId)
    throw functionErrors.validation('mode create makes a new dataset; omit dataset_id', 'mode');
  if (mode !== 'create' && !datasetId)
    throw functionErrors.invalidRequest('dataset_id', `mode ${mode} needs dataset_id`);
  const delimiter = optionalString(o, 'delimiter', 2);
  if (delimiter !== undefined && ![',', ';', '\t', '|'].includes(delimiter))
    throw functionErrors.validation('delimiter must be one of , ; tab |', 'delimiter');
  if (o.has_header !== undefined && typeof o.has_header !== 'boolean')
    throw functionErrors.invalidRequest('has_header', 'has_header must be true or false');
  const batchSize = o.batch_size === undefined ? 1000 : o.batch_size;
  if (typeof batchSize !== 'number' || !Number.isInteger(batchSize))
    throw functionErrors.invalidRequest('batch_size', 'batch_size must be a whole number');
  if (batchSize < 100 || batchSize > 10_000)
    throw functionErrors.validation('batch_size must be between 100 and 10000', 'batch_size');
  return {
    auctionId,
    datasetId,
    name,
    description: optionalString(o, 'description', 2000),
    mode,
    delimiter,
    hasHeader: o.has_header !== false,
    columnMapping: parseMapping(o.column_mapping),
    calculatedFields: parseCalculated(o.calculated_fields),
    dateOrder: oneOf(o, 'date_order', ['auto', 'DMY', 'MDY', 'YMD'] as const) ?? 'auto',
    batchSize,
  };
}

function optionalString(o: Record<string, unknown>, field: string, max: number): string | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw functionErrors.invalidRequest(field, `${field} must be a string`);
  if (v.length > max) throw functionErrors.validation(`${field} is longer than ${max} characters`, field);
  return v;
}

function oneOf<T extends string>(o: Record<string, unknown>, field: string, values: readonly T[]): T | undefined {
  const v = o[field];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw functionErrors.invalidRequest(field, `${field} must be a string`);
  if (!(values as readonly string[]).includes(v))
    throw functionErrors.validation(`${field} must be one of ${values.join(', ')}`, field);
  return v as T;
}

function parseMapping(raw: unknown): ColumnMapping[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw functionErrors.invalidRequest('column_mapping', 'column_mapping must be an array');
  return raw.map((m, i) => {
    const field = `column_mapping[${i}]`;
    if (!m || typeof m !== 'object') throw functionErrors.invalidRequest(field, `${field} must be an object`);
    const e = m as Record<string, unknown>;
    if (typeof e.source !== 'string') throw functionErrors.invalidRequest(`${field}.source`);
    const target = optionalString(e, 'target', 63);
    if (target !== undefined && !COLUMN_NAME.test(target))
      throw functionErrors.validation(`${field}.target must be a lower-case name (a-z, 0-9, _)`, `${field}.target`);
    const type = oneOf(e, 'type', TYPES);
    return { source: e.source, target, type, skip: e.skip === true };
  });
}

function parseCalculated(raw: unknown): CalculatedField[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw))
    throw functionErrors.invalidRequest('calculated_fields', 'calculated_fields must be an array');
  return raw.map((c, i) => {
    const field = `calculated_fields[${i}]`;
    if (!c || typeof c !== 'object') throw functionErrors.invalidRequest(field, `${field} must be an object`);
    const e = c as Record<string, unknown>;
    if (typeof e.name !== 'string' || !COLUMN_NAME.test(e.name))
      throw functionErrors.invalidRequest(`${field}.name`, `${field}.name must be a lower-case name (a-z, 0-9, _)`);
    if (typeof e.source !== 'string') throw functionErrors.invalidRequest(`${field}.source`);
    const part =
      oneOf(e, 'part', DATE_PARTS) ??
      (() => {
        throw functionErrors.invalidRequest(`${field}.part`);
      })();
    return { name: e.name, source: e.source, part };
  });
}
