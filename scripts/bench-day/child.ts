// The orchestrator's side of a child process (generator, subscribers, receivers): forked under tsx from the repo
// root, fed one start message, its records gathered as they come, and waited for with deadlines.
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Ack, ArrivalRecord, FromChild, RealtimeRecord, Refusal, RequestRecord } from './messages.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface Child {
  name: string;
  process: ChildProcess;
  pid: number;
  requests: RequestRecord[];
  acks: Ack[];
  refusals: Refusal[];
  realtime: RealtimeRecord[];
  arrivals: ArrivalRecord[];
  /** The child listens (it says so once its message handler is on). */
  ready: Promise<void>;
  /** The child has done what its start message asked (receivers listen, subscribers joined). */
  started: Promise<Extract<FromChild, { type: 'started' }>>;
  done: Promise<void>;
  send(message: unknown): void;
  stop(): Promise<void>;
}

export function startChild(name: string, module: string, log: (line: string) => void): Child {
  const proc = fork(fileURLToPath(new URL(module, import.meta.url)), [], {
    cwd: ROOT,
    execArgv: ['--import', 'tsx', '--max-old-space-size=2048'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  let onReady: () => void = () => {};
  let onStarted: (m: Extract<FromChild, { type: 'started' }>) => void = () => {};
  let onDone: () => void = () => {};
  const child: Child = {
    name,
    process: proc,
    pid: proc.pid as number,
    requests: [],
    acks: [],
    refusals: [],
    realtime: [],
    arrivals: [],
    ready: new Promise((resolve, reject) => {
      onReady = resolve;
      void exited.then(() => reject(new Error(`${name} exited before it was ready`)));
    }),
    started: new Promise((resolve, reject) => {
      onStarted = resolve;
      void exited.then(() => reject(new Error(`${name} exited before it started`)));
    }),
    done: new Promise((resolve, reject) => {
      onDone = resolve;
      void exited.then(() => reject(new Error(`${name} exited before it was done`)));
    }),
    send: (message) => proc.send(message as never),
    async stop() {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      const killer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
  child.ready.catch(() => {});
  child.started.catch(() => {});
  child.done.catch(() => {});
  proc.on('message', (m: FromChild) => {
    if (m.type === 'ready') onReady();
    else if (m.type === 'started') onStarted(m);
    else if (m.type === 'done') onDone();
    else if (m.type === 'log') log(`[${name}] ${m.line}`);
    else if (m.type === 'relayed') return;
    else {
      if (m.requests) for (const r of m.requests) child.requests.push(r);
      if (m.acks) for (const a of m.acks) child.acks.push(a);
      if (m.refusals) for (const r of m.refusals) child.refusals.push(r);
      if (m.realtime) for (const r of m.realtime) child.realtime.push(r);
      if (m.arrivals) for (const a of m.arrivals) child.arrivals.push(a);
    }
  });
  return child;
}

/** In a child: sends `message` to the orchestrator. */
export function tell(message: FromChild): void {
  process.send?.(message);
}

/** In a child: a buffer of records flushed to the orchestrator every `ms` and by flush(). */
export function recordBuffer(ms = 500) {
  let batch: Extract<FromChild, { type: 'records' }> = { type: 'records' };
  const flush = () => {
    if (Object.keys(batch).length > 1) tell(batch);
    batch = { type: 'records' };
  };
  const timer = setInterval(flush, ms);
  const push = <K extends 'requests' | 'acks' | 'refusals' | 'realtime' | 'arrivals'>(
    key: K,
    item: NonNullable<Extract<FromChild, { type: 'records' }>[K]>[number],
  ) => {
    if (!batch[key]) batch[key] = [];
    (batch[key] as unknown[]).push(item);
  };
  return {
    push,
    flush,
    close() {
      clearInterval(timer);
      flush();
    },
  };
}
