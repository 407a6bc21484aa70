// Times the engine's stages for the Server-Timing header: each stage's duration runs from the end of the one before.
/** Stage indexes (numbers: the timer indexes an array on the hot path). */
export const PARSE = 0,
  PLAN = 1,
  COMPILE = 2,
  EXECUTE = 3,
  RESPOND = 4;
type Stage = typeof PARSE | typeof PLAN | typeof COMPILE | typeof EXECUTE | typeof RESPOND;

// A skipped stage (parse, plan and compile on a cached plan) needs no number formatted.
const ms = (d: number) => (d === 0 ? '0.00' : d.toFixed(2));

export class StageTimer {
  private last = performance.now();
  private readonly durations = [0, 0, 0, 0, 0];

  /** Records the time since the previous stage ended (the value was computed in between) and passes it on. */
  time<T>(stage: Stage, value: T): T {
    const now = performance.now();
    this.durations[stage] += now - this.last;
    this.last = now;
    return value;
  }

  /** `parse;dur=0.01, plan;dur=0.02, ...`: a stage skipped (a cached plan) shows 0. */
  header(): string {
    const d = this.durations;
    return (
      `parse;dur=${ms(d[0])}, plan;dur=${ms(d[1])}, compile;dur=${ms(d[2])}, ` +
      `execute;dur=${ms(d[3])}, respond;dur=${ms(d[4])}`
    );
  }
}
