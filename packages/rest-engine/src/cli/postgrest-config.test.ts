import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readConfig } from './postgrest-config.js';

describe('readConfig', () => {
  it('reads jwt-secret from a file named with @, without its final line break', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rest-engine-secret-')), 'jwt');
    writeFileSync(file, 'a-secret-of-at-least-32-characters-long\n');
    expect(readConfig({ PGRST_JWT_SECRET: `@${file}` }, null).config.jwtSecret).toBe(
      'a-secret-of-at-least-32-characters-long',
    );
    expect(readConfig({}, `jwt-secret = "@${file}"`).config.jwtSecret).toBe('a-secret-of-at-least-32-characters-long');
    expect(() => readConfig({ PGRST_JWT_SECRET: '@/nonexistent/jwt' }, null)).toThrow(/cannot be read/);
  });

  it('takes the four db-tx-end values and refuses others', () => {
    expect(readConfig({}, null).config.dbTxEnd).toBe('commit');
    for (const v of ['commit', 'commit-allow-override', 'rollback', 'rollback-allow-override'] as const)
      expect(readConfig({ PGRST_DB_TX_END: v }, null).config.dbTxEnd).toBe(v);
    expect(() => readConfig({ PGRST_DB_TX_END: 'rollback-always' }, null)).toThrow(/PGRST_DB_TX_END/);
  });

  it('reads app settings from the file and the environment, which wins', () => {
    const { config, notes } = readConfig(
      { PGRST_APP_SETTINGS_APP_HOST: 'env-host', PGRST_APP_SETTINGS_other: 'x' },
      'app.settings.app_host = "file-host"\napp.settings.kept = "k"',
    );
    expect(config.appSettings).toEqual({
      'app.settings.app_host': 'file-host',
      'app.settings.APP_HOST': 'env-host',
      'app.settings.other': 'x',
      'app.settings.kept': 'k',
    });
    expect(notes.unsupported).toEqual([]);
  });
});
