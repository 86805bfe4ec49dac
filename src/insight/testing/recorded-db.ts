import { type Fixture, T0, openDb } from '../../db/testing/db-fixture.js';
import { Insight } from '../insight.js';
import { rebinColumn } from '../rebin.js';

/**
 * A database in memory on the fixture's manual clock, recorded by an Insight
 * on the same clock (10 s time buckets, no timer: tests call tick(); a
 * recording failure throws). Close the Insight before the database.
 */
export async function openRecordedDb(bucketMillis = 10_000): Promise<{ f: Fixture; insight: Insight }> {
  let clock: Fixture['clock'] | undefined;
  const insight = new Insight({
    // The fixture's clock once it exists (it starts at T0; the database opens its tables before).
    clock: { nowMicros: () => clock?.nowMicros() ?? T0 },
    config: { insightBucketMillis: bucketMillis, insightMaxHistoryBytes: 1 << 30 },
    rebinColumn,
    tickMillis: false,
    onError: (e) => {
      throw e;
    },
  });
  const f = await openDb({ access: insight });
  clock = f.clock;
  await insight.start(f.db, f.engine);
  return { f, insight };
}
