/**
 * The schema advisor over a corpus of synthetic workloads (corpus-workloads.ts):
 * one or more per rule, and the schema guide's good designs, each written and
 * read through the official Node client against a real server in this
 * process, then judged by `GET .../advice?table=T`. Every anti-pattern's table
 * must get its rule's finding at its severity or above (recall 1), and no
 * good design a warning or danger. Precision and recall over the corpus are
 * printed: true positives are the expected findings; false positives the
 * warnings and dangers nobody expected (infos nobody expected are counted
 * apart: a rule that is unsure says so with info). The server keeps the
 * advisor's thresholds but the large-row sizes (LOWERED_THRESHOLDS, through
 * ServerTuning.advisorThresholds). About 15 s on 2 cores: the workloads load
 * and then send their traffic all at once, over 7 s.
 */
import type { Bigtable } from '@google-cloud/bigtable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../src/index.js';
import { type AdviceJson, type Finding, RULE_IDS, type Severity } from '../../src/insight/advisor/types.js';
import { PROJECT, nodeClient } from '../harness/node-client.js';
import { getJson, settle, startInsightServer } from '../insight/insight-harness.js';
import { ANTI_PATTERNS, GOOD_DESIGNS, LOWERED_THRESHOLDS, type Workload } from './corpus-workloads.js';

const CORPUS: readonly Workload[] = [...ANTI_PATTERNS, ...GOOD_DESIGNS];
const RANK: Readonly<Record<Severity, number>> = { info: 0, warning: 1, danger: 2 };

let server: RunningServer;
let logs: string[];
let client: Bigtable;
const advice = new Map<string, AdviceJson>();

/** Each workload's instance: its name (instance ids are 6 to 33 characters). */
const instanceOf = (w: Workload) => `c-${w.name}`.slice(0, 33);

beforeAll(async () => {
  ({ server, logs } = await startInsightServer({ tuning: { advisorThresholds: LOWERED_THRESHOLDS } }));
  client = nodeClient(server);
  const started = Date.now();
  const tables = await Promise.all(CORPUS.map((w) => w.setup(client.instance(instanceOf(w)))));
  const loaded = Date.now();
  await Promise.all(CORPUS.map((w, i) => w.traffic?.(tables[i]!)));
  // The recording closes its last columns; the tablets' load (a 10 s window) still holds the traffic.
  await settle();
  for (const w of CORPUS) {
    const { status, body } = await getJson<AdviceJson>(
      server,
      `/api/v1/projects/${PROJECT}/instances/${instanceOf(w)}/advice?table=${encodeURIComponent(w.table)}`,
    );
    expect(status, JSON.stringify(body)).toBe(200);
    advice.set(w.name, body);
  }
  console.log(
    `corpus: ${CORPUS.length} workloads loaded in ${((loaded - started) / 1000).toFixed(1)} s, traffic and advice ${((Date.now() - loaded) / 1000).toFixed(1)} s`,
  );
}, 120_000);

afterAll(async () => {
  await client?.close();
  await server?.stop();
});

interface Score {
  readonly workload: Workload;
  readonly findings: readonly Finding[];
  /** Expected findings found at their severity or above. */
  readonly hits: number;
  readonly misses: readonly string[];
  /** Warnings and dangers nobody expected. */
  readonly falseAlarms: readonly Finding[];
  /** Infos nobody expected. */
  readonly extraInfo: readonly Finding[];
}

function score(w: Workload): Score {
  const findings = (advice.get(w.name)?.findings ?? []).filter((f) => f.table === w.table);
  const expected = new Set(w.expect.map((e) => e.rule));
  const misses = w.expect
    .filter((e) => !findings.some((f) => f.rule === e.rule && RANK[f.severity] >= RANK[e.severity]))
    .map(
      (e) =>
        `${e.rule} (${e.severity}+; got ${
          findings
            .filter((f) => f.rule === e.rule)
            .map((f) => f.severity)
            .join(', ') || 'nothing'
        })`,
    );
  const unexpected = findings.filter((f) => !expected.has(f.rule));
  return {
    workload: w,
    findings,
    hits: w.expect.length - misses.length,
    misses,
    falseAlarms: unexpected.filter((f) => f.severity !== 'info'),
    extraInfo: unexpected.filter((f) => f.severity === 'info'),
  };
}

describe('the schema advisor over the corpus', () => {
  it('finds every anti-pattern and raises nothing on the good designs; precision and recall printed', () => {
    const scores = CORPUS.map(score);
    const tp = scores.reduce((s, x) => s + x.hits, 0);
    const fn = scores.reduce((s, x) => s + x.misses.length, 0);
    const fp = scores.reduce((s, x) => s + x.falseAlarms.length, 0);
    const info = scores.reduce((s, x) => s + x.extraInfo.length, 0);
    const lines = scores.map((s) => {
      const got = s.findings.map((f) => `${f.rule}:${f.severity}`).join(', ') || '—';
      const verdict = s.misses.length > 0 ? `MISSED ${s.misses.join('; ')}` : s.falseAlarms.length > 0 ? 'FALSE ALARM' : 'ok';
      const alarms = s.falseAlarms.map((f) => `\n      unexpected ${f.rule}: ${f.message}`).join('');
      return `  ${s.workload.name.padEnd(26)} ${(s.workload.expect.map((e) => e.rule).join(', ') || 'good design').padEnd(24)} ${got}  [${verdict}]  ${s.workload.example}${alarms}`;
    });
    const precision = tp + fp === 0 ? 1 : tp / (tp + fp);
    const recall = tp + fn === 0 ? 1 : tp / (tp + fn);
    console.log(
      [
        `schema advisor corpus: ${ANTI_PATTERNS.length} anti-pattern workloads, ${GOOD_DESIGNS.length} good designs`,
        ...lines,
        `precision ${precision.toFixed(3)} (${tp} true positives, ${fp} unexpected warnings/dangers), recall ${recall.toFixed(3)} (${fn} missed); ${info} unexpected infos`,
      ].join('\n'),
    );
    const detail = (s: Score) =>
      `${s.workload.name}: ${JSON.stringify(s.findings.map((f) => [f.rule, f.severity, f.message]))}\n${logs.filter((l) => l.startsWith('error')).join('\n')}`;
    for (const s of scores) expect(s.misses, detail(s)).toEqual([]);
    for (const s of scores.filter((x) => x.workload.expect.length === 0)) expect(s.falseAlarms, detail(s)).toEqual([]);
    expect(recall).toBe(1);
  });

  it('covers every rule of RULE_IDS with at least one workload', () => {
    const covered = new Set(ANTI_PATTERNS.flatMap((w) => w.expect.map((e) => e.rule)));
    expect(RULE_IDS.filter((r) => !covered.has(r))).toEqual([]);
  });
});
