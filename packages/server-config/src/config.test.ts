import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError, withPort } from './index.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config.PORT).toBe(54321);
    expect(config.HOST).toBe('127.0.0.1');
    expect(config.PUBLIC_URL).toBe('http://127.0.0.1:54321');
    expect(config.APP_URL).toBe(config.PUBLIC_URL);
    expect(config.DATA_DIR).toMatch(/\.data$/);
    expect(config.BACKUP_ARCHIVE_TIMEOUT_SECONDS).toBe(60);
    expect(config.STORAGE_FILE_ETAG_ALGORITHM).toBe('md5');
    expect([config.AUCTION_DELETE_GRACE_DAYS, config.AUCTION_PURGE_ENABLED]).toEqual([30, true]);
    expect(loadConfig({ BACKUP_SCHEDULE: '0 3 * * *' }).BACKUP_SCHEDULE).toBe('0 3 * * *');
  });

  it('reads BACKUP_DRILL_INTERVAL as seconds: a day by default, 0 when off', () => {
    expect(loadConfig({}).BACKUP_DRILL_INTERVAL).toBe(86_400);
    expect(loadConfig({ BACKUP_DRILL_INTERVAL: 'off' }).BACKUP_DRILL_INTERVAL).toBe(0);
    expect(loadConfig({ BACKUP_DRILL_INTERVAL: '7d' }).BACKUP_DRILL_INTERVAL).toBe(7 * 86_400);
    expect(loadConfig({ BACKUP_DRILL_INTERVAL: '30m' }).BACKUP_DRILL_INTERVAL).toBe(1800);
  });

  it.each([
    ['PORT', 'abc', /PORT="abc" must be a whole number/],
    ['PORT', '70000', /PORT="70000" must be between 0 and 65535/],
    ['PUBLIC_URL', 'not a url', /PUBLIC_URL="not a url" must be a URL/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL=\(value not shown\) must be a postgres:\/\/ URL/],
    ['JWT_SECRET', 'short', /JWT_SECRET=\(value not shown\) must be at least 32 characters/],
    ['LOG_LEVEL', 'loud', /LOG_LEVEL="loud" must be/],
    ['DATABASE_READ_URLS', 'postgres://a/db,mysql://b', /DATABASE_READ_URLS=\(value not shown\) must be comma-sep/],
    [
      'DATABASE_POOLER_URL',
      'http://u:pw@pooler',
      /DATABASE_POOLER_URL=\(value not shown\) must be a postgres:\/\/ URL/,
    ],
    ['DB_PREPARE', 'no', /DB_PREPARE="no" must be true or false/],
    ['DB_READ_CHECK_INTERVAL_MS', '0', /DB_READ_CHECK_INTERVAL_MS="0" must be at least 1/],
    ['BACKUP_SCHEDULE', 'nightly', /BACKUP_SCHEDULE="nightly" must be a cron pattern/],
    ['BACKUP_KEEP', '0', /BACKUP_KEEP="0" must be at least 1/],
    ['BACKUP_ARCHIVE_TIMEOUT_SECONDS', 'soon', /BACKUP_ARCHIVE_TIMEOUT_SECONDS="soon" must be a whole number/],
    ['BACKUP_DRILL_INTERVAL', 'daily', /BACKUP_DRILL_INTERVAL="daily" must be off or a duration such as 30m/],
    ['BACKUP_DRILL_INTERVAL', '5m', /BACKUP_DRILL_INTERVAL="5m" must be off or at least 10m/],
    ['REALTIME_PUBLIC_CHANNELS', 'everyone', /REALTIME_PUBLIC_CHANNELS="everyone" must be signed-in, anyone or off/],
    ['STORAGE_FILE_ETAG_ALGORITHM', 'sha1', /STORAGE_FILE_ETAG_ALGORITHM="sha1" must be md5 or mtime/],
    ['AUCTION_DELETE_GRACE_DAYS', 'a month', /AUCTION_DELETE_GRACE_DAYS="a month" must be a number of days/],
    ['AUCTION_PURGE_INTERVAL_MINUTES', '0', /AUCTION_PURGE_INTERVAL_MINUTES="0" must be at least 0.01/],
  ])('names %s when it is %s', (key, value, message) => {
    expect(() => loadConfig({ [key]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [key]: value })).toThrow(message);
  });

  it('refuses an SMS provider without its settings, naming the first one missing', () => {
    expect(() => loadConfig({ AUTH_SMS_PROVIDER: 'carrier-pigeon' })).toThrow(
      /must be twilio, vonage, messagebird or textlocal/,
    );
    expect(() => loadConfig({ AUTH_SMS_PROVIDER: 'vonage', AUTH_SMS_VONAGE_API_KEY: 'k' })).toThrow(
      'AUTH_SMS_VONAGE_API_SECRET must be set when AUTH_SMS_PROVIDER=vonage',
    );
    expect(() => loadConfig({ AUTH_SMS_PROVIDER: 'messagebird', AUTH_SMS_MESSAGEBIRD_ACCESS_KEY: 'k' })).toThrow(
      'AUTH_SMS_MESSAGEBIRD_ORIGINATOR must be set when AUTH_SMS_PROVIDER=messagebird',
    );
    expect(() => loadConfig({ AUTH_SMS_PROVIDER: 'twilio' })).toThrow(
      'AUTH_SMS_TWILIO_ACCOUNT_SID must be set when AUTH_SMS_PROVIDER=twilio',
    );
    const vonage = {
      AUTH_SMS_VONAGE_API_KEY: 'key',
      AUTH_SMS_VONAGE_API_SECRET: 'secret',
      AUTH_SMS_VONAGE_FROM: 'Yard',
    };
    expect(loadConfig({ AUTH_SMS_PROVIDER: 'vonage', ...vonage }).AUTH_SMS_VONAGE_API_URL).toBe(
      'https://rest.nexmo.com',
    );
  });

  it("takes Supabase's names for the public URL and the API keys, and refuses two values for one setting", () => {
    const config = loadConfig({
      SUPABASE_URL: 'https://ops.example.com',
      SUPABASE_ANON_KEY: 'anon-key-value',
      SUPABASE_SERVICE_ROLE_KEY: 'service-key-value',
    });
    expect([config.PUBLIC_URL, config.ANON_KEY, config.SERVICE_ROLE_KEY]).toEqual([
      'https://ops.example.com',
      'anon-key-value',
      'service-key-value',
    ]);
    // The same value under both names is one setting.
    expect(loadConfig({ SUPABASE_ANON_KEY: 'k', ANON_KEY: 'k' }).ANON_KEY).toBe('k');
    const conflict = () => loadConfig({ SUPABASE_SERVICE_ROLE_KEY: 'secret-one', SERVICE_ROLE_KEY: 'secret-two' });
    expect(conflict).toThrow(ConfigError);
    expect(conflict).toThrow(
      'invalid configuration: SUPABASE_SERVICE_ROLE_KEY and SERVICE_ROLE_KEY are both set, to different values',
    );
    expect(() => loadConfig({ SUPABASE_URL: 'https://a.example.com', PUBLIC_URL: 'https://b.example.com' })).toThrow(
      /SUPABASE_URL and PUBLIC_URL/,
    );
    expect(() => loadConfig({ SUPABASE_URL: 'not a url' })).toThrow(/PUBLIC_URL="not a url" must be a URL/);
  });

  it('reads the replica URLs as a list, and preparing is on unless turned off', () => {
    expect(loadConfig({}).DATABASE_READ_URLS).toEqual([]);
    expect(loadConfig({}).DB_PREPARE).toBe(true);
    const config = loadConfig({
      DATABASE_READ_URLS: ' postgres://r1:5432/app, ,postgresql://r2/app ',
      DB_PREPARE: 'false',
    });
    expect(config.DATABASE_READ_URLS).toEqual(['postgres://r1:5432/app', 'postgresql://r2/app']);
    expect(config.DB_PREPARE).toBe(false);
  });

  it('takes PostgreSQL settings for the embedded cluster, refusing what the server sets itself', () => {
    expect(loadConfig({}).DB_EMBEDDED_SETTINGS).toEqual({});
    expect(
      loadConfig({
        DB_EMBEDDED_SETTINGS: ' shared_buffers = 512MB; ;shared_preload_libraries=a,b;pg_stat_statements.max=500',
      }).DB_EMBEDDED_SETTINGS,
    ).toEqual({ shared_buffers: '512MB', shared_preload_libraries: 'a,b', 'pg_stat_statements.max': '500' });
    expect(loadConfig({ DB_EMBEDDED_SETTINGS: 'TimeZone=UTC' }).DB_EMBEDDED_SETTINGS).toEqual({ timezone: 'UTC' });
    for (const bad of ['shared_buffers', 'shared_buffers=', 'Shared-Buffers=1GB', "x=1; y' -c z=1"])
      expect(() => loadConfig({ DB_EMBEDDED_SETTINGS: bad })).toThrow(
        'must be name=value pairs of PostgreSQL settings separated by ";"',
      );
    for (const owned of ['wal_level=replica', 'Archive_Command=true', 'listen_addresses=*', 'port=5432'])
      expect(() => loadConfig({ DB_EMBEDDED_SETTINGS: `work_mem=8MB;${owned}` })).toThrow(
        'may not set what the server sets itself',
      );
    expect(() =>
      loadConfig({ DB_EMBEDDED_SETTINGS: 'work_mem=8MB', DATABASE_URL: 'postgres://db.example/app' }),
    ).toThrow('DB_EMBEDDED_SETTINGS is set, but DATABASE_URL is too');
  });

  it("fixes the embedded PostgreSQL's port with DB_EMBEDDED_PORT, a free one by default (issue 56)", () => {
    expect(loadConfig({}).DB_EMBEDDED_PORT).toBe(0);
    expect(loadConfig({ DB_EMBEDDED_PORT: '54329' }).DB_EMBEDDED_PORT).toBe(54329);
    expect(() => loadConfig({ DB_EMBEDDED_PORT: 'postgres' })).toThrow(
      'invalid configuration: DB_EMBEDDED_PORT="postgres" must be a whole number',
    );
    expect(() => loadConfig({ DB_EMBEDDED_PORT: '70000' })).toThrow('must be between 0 and 65535');
    expect(() => loadConfig({ DB_EMBEDDED_PORT: '54329', DATABASE_URL: 'postgres://db.example/app' })).toThrow(
      'DB_EMBEDDED_PORT is set, but DATABASE_URL is too: the embedded PostgreSQL does not run; unset one',
    );
    expect(() => loadConfig({ DB_EMBEDDED_PORT: '54329', PORT: '54329' })).toThrow(
      'DB_EMBEDDED_PORT and PORT are both 54329: the embedded PostgreSQL needs a port of its own',
    );
  });

  it('takes PUBLIC_URL and APP_URL without a trailing slash', () => {
    const config = loadConfig({ PUBLIC_URL: 'https://api.example.com/', APP_URL: 'https://app.example.com/' });
    expect(config.PUBLIC_URL).toBe('https://api.example.com');
    expect(config.APP_URL).toBe('https://app.example.com');
  });

  it('moves derived URLs with the port but keeps given ones', () => {
    const derived = withPort(loadConfig({ PORT: '0' }), 4321);
    expect(derived.PUBLIC_URL).toBe('http://127.0.0.1:4321');
    expect(derived.APP_URL).toBe('http://127.0.0.1:4321');
    const given = withPort(
      loadConfig({ PORT: '0', PUBLIC_URL: 'https://api.example.com', APP_URL: 'https://app.example.com' }),
      4321,
    );
    expect(given.PUBLIC_URL).toBe('https://api.example.com');
    expect(given.APP_URL).toBe('https://app.example.com');
  });
});

describe('WEB_CONCURRENCY', () => {
  it('is 1 under NODE_ENV=test, else one per core but at most DB_POOL_SIZE', () => {
    expect(loadConfig({ NODE_ENV: 'test' }).WEB_CONCURRENCY).toBe(1);
    expect(loadConfig({ DB_POOL_SIZE: '1' }).WEB_CONCURRENCY).toBe(1);
    expect(loadConfig({ WEB_CONCURRENCY: '3', DB_POOL_SIZE: '3' }).WEB_CONCURRENCY).toBe(3);
  });

  it('refuses more processes than request connections', () => {
    expect(() => loadConfig({ WEB_CONCURRENCY: '4', DB_POOL_SIZE: '3' })).toThrow(
      'invalid configuration: WEB_CONCURRENCY="4" must not exceed DB_POOL_SIZE (3), the request connections in all',
    );
  });
});
