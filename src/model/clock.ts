/** The source of time, injected so that tests can control it. */
export interface Clock {
  /** Microseconds since the Unix epoch. */
  nowMicros(): number;
}

export const systemClock: Clock = {
  nowMicros: () => Date.now() * 1000,
};

/** A clock that moves only when told: for tests of max-age GC and server timestamps. */
export class ManualClock implements Clock {
  constructor(private micros: number = Date.UTC(2026, 0, 1) * 1000) {}
  nowMicros(): number {
    return this.micros;
  }
  advanceMillis(ms: number): void {
    this.micros += ms * 1000;
  }
  setMicros(micros: number): void {
    this.micros = micros;
  }
}
