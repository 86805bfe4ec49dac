/**
 * The background GC sweep: every `intervalMillis`, physically drops what
 * the families' GC rules collect (reads already hide it). One sweep at a
 * time; the timer does not keep the process alive; `stop()` waits for a
 * running sweep to end. A failed sweep goes to `onError` (the next one runs
 * as scheduled).
 */
export class GcSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly intervalMillis: number,
    private readonly sweep: () => Promise<void>,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    if (this.intervalMillis <= 0 || this.timer !== undefined) return;
    this.timer = setInterval(() => {
      if (this.running === undefined) this.runOnce().catch(this.onError);
    }, this.intervalMillis);
    this.timer.unref();
  }

  /** Runs a sweep now (or joins the one running). Rejects when it fails. */
  runOnce(): Promise<void> {
    if (this.running !== undefined) return this.running;
    const run = this.sweep().finally(() => {
      this.running = undefined;
    });
    this.running = run;
    return run;
  }

  async stop(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    const running = this.running;
    // Its failure, if any, already went to whoever started it (onError or the runOnce caller).
    if (running !== undefined) await running.catch(() => undefined);
  }
}
