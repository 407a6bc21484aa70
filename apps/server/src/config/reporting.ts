// Reporting functions: the language model of generate-sql (any OpenAI-compatible server), execute-query's
// statement timeout and result cache, and import-csv's file limit.
import * as v from 'valibot';
import { nonEmpty, positiveInt, url } from './fields.js';

export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export const reportingSettings = {
  OPENAI_API_KEY: v.optional(nonEmpty),
  OPENAI_BASE_URL: v.optional(url),
  OPENAI_MODEL: v.optional(nonEmpty, 'gpt-4o-mini'),
  LLM_TIMEOUT_MS: v.optional(positiveInt, '30000'),
  EXECUTE_QUERY_TIMEOUT_MS: v.optional(positiveInt, '10000'),
  QUERY_CACHE_MAX_BYTES: v.optional(positiveInt, String(64 * 1024 * 1024)),
  IMPORT_MAX_BYTES: v.optional(positiveInt, String(50 * 1024 * 1024)),
};
