// Bounded concurrency for image transformations: at most `concurrency` run at once (each in sharp's libuv
// worker threads, off the event loop), at most `maxWaiting` wait; past that a request is refused at once
// rather than queued without bound, so a burst of renders cannot hold memory or starve other requests.
import { renderErrors } from './render-errors.js';

export class RenderQueue {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  get active(): number {
    return this.running;
  }

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxWaiting) throw renderErrors.busy();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await job();
    } finally {
      // The slot passes straight to the next waiter, so `running` only falls when nobody waits.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
