// All nine functions and what they need: the one list the server's /functions/v1 adapter dispatches over.
import type { FunctionDefinition } from './family/function-definition.js';
import { notificationFunctions } from './notify/notify-definitions.js';
import type { NotifyDeps } from './notify/notify-handlers.js';
import { executeQuery, type ReportingDeps } from './reporting/execute-query.js';
import { generateSql, type GenerateSqlDeps } from './reporting/generate-sql.js';
import { importCsv, type ImportDeps } from './reporting/import/import-csv.js';

export type FunctionDeps = NotifyDeps & ReportingDeps & GenerateSqlDeps & ImportDeps;

export const allFunctions: readonly FunctionDefinition<FunctionDeps>[] = [
  importCsv,
  generateSql,
  executeQuery,
  ...notificationFunctions,
];
