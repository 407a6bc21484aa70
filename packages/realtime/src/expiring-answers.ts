// Answers from Postgres kept for a while (grants and policies can change at any time, so they are asked again once
// old), with one question per key in flight: a wave of joins asks once, not once per join.
export class ExpiringAnswers<V> {
  private readonly known = new Map<string, { at: number; value: V }>();
  private readonly asking = new Map<string, Promise<V>>();

  constructor(private readonly ttlMs: number) {}

  /** The answer for `key`: kept while fresh, else the question already asked, else `ask()`. */
  get(key: string, ask: () => Promise<V>): Promise<V> {
    const known = this.known.get(key);
    if (known && Date.now() - known.at < this.ttlMs) return Promise.resolve(known.value);
    let asking = this.asking.get(key);
    if (!asking) {
      asking = ask()
        .then((value) => {
          this.known.set(key, { at: Date.now(), value });
          return value;
        })
        .finally(() => this.asking.delete(key));
      this.asking.set(key, asking);
    }
    return asking;
  }

  /** The last answer for `key` and when it came, fresh or not. */
  last(key: string): { at: number; value: V } | undefined {
    return this.known.get(key);
  }

  clear(): void {
    this.known.clear();
  }
}
