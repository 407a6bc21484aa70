// Times the engine's stages for the Server-Timing header: each stage's duration runs from the end of the one before.
const STAGES = ['parse', 'plan', 'compile', 'execute', 'respond'] as const;
export type Stage = (typeof STAGES)[number];

export class StageTimer {
  private last = performance.now();
  private readonly durations = [0, 0, 0, 0, 0];

  /** Records the time since the previous stage ended (the value was computed in between) and passes it on. */
  time<T>(stage: Stage, value: T): T {
    const now = performance.now();
    this.durations[STAGES.indexOf(stage)] += now - this.last;
    this.last = now;
    return value;
  }

  /** `parse;dur=0.01, plan;dur=0.02, ...`: a stage skipped (a cached plan) shows 0. */
  header(): string {
    return STAGES.map((s, i) => `${s};dur=${this.durations[i].toFixed(2)}`).join(', ');
  }
}
