// Reporting functions: the language model of generate-sql (any OpenAI-compatible server), execute-query's
// statement timeout and result cache, import-csv's file limit, and per-function limit overrides.
import * as v from 'valibot';
import { bool, nonEmpty, positiveInt, url } from './fields.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export const reportingSettings = {
  OPENAI_API_KEY: v.optional(nonEmpty),
  OPENAI_BASE_URL: v.optional(url),
  OPENAI_MODEL: v.optional(nonEmpty, 'gpt-4o-mini'),
  LLM_TIMEOUT_MS: v.optional(positiveInt, '30000'),
  EXECUTE_QUERY_TIMEOUT_MS: v.optional(positiveInt, '10000'),
  QUERY_CACHE_MAX_BYTES: v.optional(positiveInt, String(64 * 1024 * 1024)),
  // Results shared by every process and instance through PostgreSQL; false keeps them per process.
  QUERY_CACHE_SHARED: v.optional(bool, 'true'),
  // Bytes the shared tier (an unlogged table) may hold before its oldest entries are evicted.
  QUERY_CACHE_SHARED_MAX_BYTES: v.optional(positiveInt, String(256 * 1024 * 1024)),
  IMPORT_MAX_BYTES: v.optional(positiveInt, String(50 * 1024 * 1024)),
  // Per-function overrides of the per-user limits, e.g. `execute-query=60/minute,import-csv=20/hour`.
  FUNCTION_RATE_LIMITS: v.optional(
    v.pipe(
      v.string(),
      v.regex(
        /^([a-z-]+=\d+\/(minute|hour)(,[a-z-]+=\d+\/(minute|hour))*)?$/,
        'must be a comma-separated list of name=N/minute or name=N/hour',
      ),
      v.transform((s) =>
        Object.fromEntries(
          s
            .split(',')
            .filter(Boolean)
            .map((rule) => {
              const [name, limit] = rule.split('=');
              const [max, per] = limit.split('/');
              return [name, { max: Number(max), per: per as 'minute' | 'hour' }];
            }),
        ),
      ),
    ),
    '',
  ),
};
