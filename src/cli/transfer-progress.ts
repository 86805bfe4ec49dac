import { formatBytes, formatCount } from '../units.js';

/**
 * Progress of a long data transfer (`tabletop copy`, `export`, `import`) on stderr: a line every `everyMillis`
 * with rows, cells, bytes and the rate, and a bar when the total is known (ranges of a copy).
 */
export class TransferProgress {
  rows = 0;
  cells = 0;
  bytes = 0;
  done = 0;
  private readonly began = performance.now();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly what: string,
    private readonly write: (line: string) => void,
    private readonly total?: { count: number; unit: string },
    everyMillis = 1000,
  ) {
    if (everyMillis > 0) {
      this.timer = setInterval(() => this.write(this.line()), everyMillis);
      this.timer.unref();
    }
  }

  seconds(): number {
    return (performance.now() - this.began) / 1000;
  }

  line(): string {
    const s = Math.max(this.seconds(), 1e-3);
    const rate = `${formatCount(this.rows / s)} rows/s, ${formatBytes(this.bytes / s)}/s`;
    const counts = `${formatCount(this.rows)} rows, ${formatCount(this.cells)} cells, ${formatBytes(this.bytes)}`;
    if (this.total === undefined) return `${this.what}: ${counts} (${rate})`;
    const width = 20;
    const filled = this.total.count === 0 ? width : Math.round((this.done / this.total.count) * width);
    return `${this.what}: [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${this.done}/${this.total.count} ${this.total.unit}, ${counts} (${rate})`;
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
  }
}
