// Carries the configuration SQL needs into the database: the endpoint URL trigger reads webhooks.settings, so the
// server writes WEBHOOK_ALLOW_HTTP there at start (every process writes the same value from the same config).
import type postgres from 'postgres';

export async function syncWebhookSettings(sql: postgres.Sql, settings: { allowHttp: boolean }): Promise<void> {
  await sql`update webhooks.settings set allow_http = ${settings.allowHttp}, updated_at = now()
             where allow_http is distinct from ${settings.allowHttp}`;
}
