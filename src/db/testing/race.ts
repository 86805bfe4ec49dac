/** Two operations raced at every interleaving point (raceAtEveryPoint). */
export interface Race<A, B> {
  /** Runs before each race and finishes before it starts (a fresh row, say). */
  readonly setup?: () => Promise<unknown>;
  readonly first: () => Promise<A>;
  readonly second: () => Promise<B>;
  /** Checks the outcome of one race; `point` names where the second operation started. */
  readonly check: (first: A, second: B, point: string) => Promise<void> | void;
}

/** Microtasks tried after each turn of the event loop: more than an operation runs through between two turns. */
const MICROTASKS = 16;
/** Turns of the event loop tried at most. */
const MAX_TURNS = 60;

/**
 * Runs the race once for every point at which the second operation can
 * start while the first runs: after each microtask, on each turn of the
 * event loop (setImmediate), counted from just before the first starts (a
 * microtask queued after the first yields would run after it resumes).
 * Stops at the first turn at which the second started after the first had
 * finished: later points are serial orders too. Fails when the first does not
 * finish within MAX_TURNS turns. Returns how many points were tried.
 */
export async function raceAtEveryPoint<A, B>(race: Race<A, B>): Promise<number> {
  let points = 0;
  for (let turns = 0; turns < MAX_TURNS; turns++) {
    let serial = false;
    for (let microtasks = 0; microtasks <= MICROTASKS; microtasks++) {
      await race.setup?.();
      let firstDone = false;
      const second = after(turns, microtasks).then(() => {
        if (firstDone) serial = true;
        return race.second();
      });
      const first = race.first().finally(() => (firstDone = true));
      const [a, b] = await Promise.all([first, second]);
      await race.check(a, b, `second operation started after ${turns} turns and ${microtasks} microtasks`);
      points++;
    }
    if (serial) return points;
  }
  throw new Error(`the first operation did not finish within ${MAX_TURNS} turns of the event loop`);
}

/** Resolves once `turns` turns of the event loop and then `microtasks` microtasks have passed. */
async function after(turns: number, microtasks: number): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
  for (let i = 0; i < microtasks; i++) await null;
}
