/**
 * Terminal progress. On a TTY one status line is redrawn in place (at most
 * ten times a second); otherwise (a pipe, CI) a status line is printed every
 * few seconds, so long runs always show that they are moving.
 */

export interface ProgressTask {
  /** Reports how many units are done so far (cumulative). */
  update(done: number): void;
  /** Ends the task with a permanent summary line. */
  finish(summary: string): void;
}

const TTY_INTERVAL_MS = 100;
const PIPE_INTERVAL_MS = 5_000;

export class Progress {
  private statusShown = false;
  private readonly tty: boolean;

  constructor(private readonly out: NodeJS.WriteStream = process.stdout) {
    this.tty = out.isTTY === true;
  }

  /** Prints a permanent line. */
  line(text: string): void {
    this.clearStatus();
    this.out.write(text + '\n');
  }

  /**
   * Starts a task: `label` says what runs (workload, target, run k of n),
   * `unit` names what `update` counts, `total` is known for count-based work.
   */
  task(label: string, unit: string, total?: number): ProgressTask {
    const started = performance.now();
    // On a TTY draw at once; in a log, print only when a task runs for a while.
    let last = this.tty ? 0 : started;
    let done = 0;
    const render = (): string => {
      const secs = (performance.now() - started) / 1000;
      const rate = secs > 0 ? done / secs : 0;
      const of = total === undefined ? '' : ` of ${formatCount(total)}`;
      return `${label}: ${formatCount(done)}${of} ${unit}, ${formatCount(rate)} ${unit}/s, ${secs.toFixed(1)} s`;
    };
    return {
      update: (n) => {
        done = n;
        const now = performance.now();
        if (now - last < (this.tty ? TTY_INTERVAL_MS : PIPE_INTERVAL_MS)) return;
        last = now;
        this.status(render());
      },
      finish: (summary) => this.line(`${label}: ${summary}`),
    };
  }

  private status(text: string): void {
    if (this.tty) {
      const width = this.out.columns ?? 120;
      this.out.write('\r\x1b[K' + text.slice(0, Math.max(20, width - 1)));
      this.statusShown = true;
    } else {
      this.out.write(`  ... ${text}\n`);
    }
  }

  private clearStatus(): void {
    if (this.statusShown) {
      this.out.write('\r\x1b[K');
      this.statusShown = false;
    }
  }
}

export function formatCount(n: number): string {
  if (!Number.isFinite(n)) return '-';
  return Math.round(n).toLocaleString('en-US');
}
