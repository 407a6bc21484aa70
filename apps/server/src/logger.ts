// Structured JSON logs, one object per line. Callers pass fields, never tokens or secrets.
export type Level = 'debug' | 'info' | 'warn' | 'error';
const order: Record<Level | 'silent', number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  /** Whether lines of this level are written: a caller can skip building fields nobody reads. */
  enabled(level: Level): boolean;
}

export function createLogger(
  level: Level | 'silent' = 'info',
  write: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): Logger {
  const min = order[level];
  const emit = (lvl: Level) => (msg: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < min) return;
    write(JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields }));
  };
  return {
    debug: emit('debug'),
    info: emit('info'),
    warn: emit('warn'),
    error: emit('error'),
    enabled: (lvl) => order[lvl] >= min,
  };
}
