// Stands in for supabase-js's `tracing` entry when the suite runs against this repository's supabase-js build
// (SUPABASE_JS_CLIENT=workspace), whose tracing module needs @opentelemetry/api beside it: the trace
// propagation tests then fail, the others run.
export {};
