/**
 * The schema advisor where users get it: `GET .../advice`, `GET
 * .../tables/{t}/simulate` and `tabletop advise`, on a real server started in
 * this process (recording on, and off), with data written through the
 * official Node client.
 */
import type { Bigtable } from '@google-cloud/bigtable';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/cli.js';
import type { RunningServer } from '../../src/index.js';
import type { AdviceJson, SimulationJson } from '../../src/insight/advisor/types.js';
import { RULE_IDS } from '../../src/insight/advisor/types.js';
import { uniqueTableId } from '../harness/names.js';
import { INSTANCE, PROJECT, nodeClient } from '../harness/node-client.js';
import { getJson, settle, startInsightServer, writeRows } from '../insight/insight-harness.js';

let on: RunningServer;
let off: RunningServer;
const clients: Bigtable[] = [];
const logs: string[][] = [];
const EVENTS = uniqueTableId('events');
const USERS = uniqueTableId('users');
const base = `/api/v1/projects/${PROJECT}/instances/${INSTANCE}`;

/** The node count of the instance's first cluster (the simulation's default). */
async function serveNodes(server: RunningServer): Promise<number> {
  const { body } = await getJson<{ clusters: { serveNodes: number }[] }>(server, `${base}/nodes`);
  return body.clusters[0]!.serveNodes;
}

/** Timestamp-first keys, written in time order; and a well-designed table. */
async function load(server: RunningServer): Promise<void> {
  const bigtable = nodeClient(server);
  clients.push(bigtable);
  const instance = bigtable.instance(INSTANCE);
  const [events] = await instance.createTable(EVENTS, { families: ['cf'] });
  const [users] = await instance.createTable(USERS, { families: ['cf'] });
  const t0 = Date.parse('2026-05-01T12:00:00Z');
  for (let b = 0; b < 10; b++) {
    const keys = Array.from({ length: 30 }, (_, i) => `${new Date(t0 + (b * 30 + i) * 1000).toISOString()}#sensor${(b * 7 + i) % 13}`);
    await writeRows(events, keys);
  }
  await writeRows(
    users,
    Array.from({ length: 50 }, (_, i) => `tenant${i % 5}#user${String(i).padStart(4, '0')}`),
  );
}

beforeAll(async () => {
  const a = await startInsightServer();
  const b = await startInsightServer({ insight: false });
  on = a.server;
  off = b.server;
  logs.push(a.logs, b.logs);
  await Promise.all([load(on), load(off)]);
  await settle();
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await on?.stop();
  await off?.stop();
  // No internal error was logged.
  for (const l of logs) expect(l.filter((line) => line.startsWith('error:'))).toEqual([]);
});

describe('GET .../advice', () => {
  it('answers the advice for every table of the instance, over the recorded window', async () => {
    const { status, body } = await getJson<AdviceJson>(on, `${base}/advice`);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.instance).toBe(`projects/${PROJECT}/instances/${INSTANCE}`);
    expect(body.tables).toEqual(expect.arrayContaining([EVENTS, USERS]));
    expect(Date.parse(body.window.to) - Date.parse(body.window.from)).toBeGreaterThan(0);
    expect(Date.parse(body.generatedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(body.notes).toBeUndefined();
    for (const f of body.findings) {
      expect(RULE_IDS).toContain(f.rule);
      expect(['info', 'warning', 'danger']).toContain(f.severity);
    }
    // The timestamp-first table is flagged, with the fix in its own keys; the tenant-prefixed one is not.
    const ts = body.findings.find((f) => f.table === EVENTS && f.rule === 'timestamp-leading-key');
    expect(ts, JSON.stringify(body.findings)).toBeDefined();
    expect(['warning', 'danger']).toContain(ts!.severity);
    expect(ts!.suggestion).toMatch(/sensor\d+#2026-05-01T12:/);
    expect(ts!.simulate).toBeDefined();
    expect(body.findings.filter((f) => f.table === USERS && f.severity !== 'info')).toEqual([]);
  });

  it('?table=T answers for that table only; 404 for an unknown table or instance, 400 for an unknown parameter', async () => {
    const { status, body } = await getJson<AdviceJson>(on, `${base}/advice?table=${EVENTS}`);
    expect(status).toBe(200);
    expect(body.tables).toEqual([EVENTS]);
    expect(body.findings.every((f) => f.table === EVENTS)).toBe(true);
    for (const path of [`${base}/advice?table=nope`, `/api/v1/projects/${PROJECT}/instances/ghost/advice`]) {
      const r = await getJson<{ error: { code: string; message: string } }>(on, path);
      expect([path, r.status, r.body.error.code]).toEqual([path, 404, 'NotFound']);
    }
    const bad = await getJson<{ error: { code: string; message: string } }>(on, `${base}/advice?tables=x`);
    expect([bad.status, bad.body.error.message]).toEqual([400, 'Unknown query parameter "tables": use table']);
  });

  it('with recording off, still answers from the stored data, and says the traffic rules were silent', async () => {
    const { status, body } = await getJson<AdviceJson>(off, `${base}/advice?table=${EVENTS}`);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body.tables).toEqual([EVENTS]);
    expect(body.notes).toEqual([expect.stringContaining('recording is off (--insight off)')]);
    // From the stored keys alone, the timestamp at the front is still seen.
    expect(body.findings.map((f) => f.rule)).toContain('timestamp-leading-key');
  });
});

describe('GET .../tables/{t}/simulate', () => {
  it('answers the simulation of a transform over the instance node count, or the nodes asked for', async () => {
    const { status, body } = await getJson<SimulationJson>(on, `${base}/tables/${EVENTS}/simulate?transform=promote:2`);
    expect(status, JSON.stringify(body)).toBe(200);
    expect(body).toMatchObject({ table: EVENTS, transform: 'promote:2', nodes: await serveNodes(on) });
    expect(body.keysSampled).toBeGreaterThan(0);
    const three = await getJson<SimulationJson>(on, `${base}/tables/${EVENTS}/simulate?transform=${encodeURIComponent('salt:4')}&nodes=5`);
    expect([three.status, three.body.nodes]).toEqual([200, 5]);
  });

  it('answers 400 for a bad or missing transform or node count, 404 for an unknown table', async () => {
    const cases: [string, number, RegExp][] = [
      ['?transform=shuffle:2', 400, /Invalid transform "shuffle:2".*A TRANSFORM is steps separated by/],
      ['', 400, /Give the key transformation as "transform" .*A TRANSFORM is steps separated by/],
      ['?transform=salt:4&nodes=0', 400, /"nodes" must be a whole number from 1 to 1000/],
      ['?transform=salt:4&nodes=many', 400, /Invalid "nodes": "many"/],
      ['?transform=salt:4&node=2', 400, /Unknown query parameter "node": use transform, nodes/],
    ];
    for (const [q, status, message] of cases) {
      const r = await getJson<{ error: { code: string; message: string } }>(on, `${base}/tables/${EVENTS}/simulate${q}`);
      expect([q, r.status, r.body.error.code]).toEqual([q, status, 'InvalidArgument']);
      expect(r.body.error.message).toMatch(message);
    }
    const r = await getJson<{ error: { code: string } }>(on, `${base}/tables/nope/simulate?transform=salt:4`);
    expect([r.status, r.body.error.code]).toEqual([404, 'NotFound']);
  });
});

/** Runs `tabletop advise ARGS` against `server`: exit code, stdout and stderr. */
async function advise(server: RunningServer, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(['advise', '--server', `localhost:${server.httpPort}`, ...args], {
    stdout: (l) => void out.push(l),
    stderr: (l) => void err.push(l),
    onSignal: () => () => undefined,
    exitNow: () => undefined,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('tabletop advise', () => {
  it("prints the findings grouped by severity and a summary line; exit code 0; the server's only instance by default", async () => {
    const r = await advise(on);
    expect(r.code, r.err).toBe(0);
    const lines = r.out.split('\n');
    expect(lines).toContain(`[timestamp-leading-key] ${EVENTS}`);
    expect(lines.at(-1)).toMatch(new RegExp(`(finding|No findings).* for 2 tables of projects/${PROJECT}/instances/${INSTANCE}`));
    const headings = lines.filter((l) => /^(DANGER|WARNING|INFO) \(\d+\)$/.test(l)).map((l) => l.split(' ')[0]);
    expect(headings).toEqual(['DANGER', 'WARNING', 'INFO'].filter((h) => headings.includes(h)));
  });

  it('--json prints the JSON of the route; --table takes an id or a full name', async () => {
    const r = await advise(on, '--json', '--table', `projects/${PROJECT}/instances/${INSTANCE}/tables/${EVENTS}`);
    expect(r.code, r.err).toBe(0);
    const json = JSON.parse(r.out) as AdviceJson;
    expect(json.tables).toEqual([EVENTS]);
    const text = await advise(on, '--table', USERS, '--project', PROJECT, '--instance', INSTANCE);
    expect(text.out.split('\n').at(-1)).toMatch(/ for 1 table of /);
  });

  it('--simulate prints the simulation (or its JSON), and needs --table', async () => {
    const r = await advise(on, '--table', EVENTS, '--simulate', 'promote:2', '--nodes', '2');
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain(EVENTS);
    const j = await advise(on, '--table', EVENTS, '--simulate', 'promote:2', '--json');
    expect(JSON.parse(j.out)).toMatchObject({ table: EVENTS, transform: 'promote:2', nodes: await serveNodes(on) });
    expect(await advise(on, '--simulate', 'promote:2')).toMatchObject({
      code: 2,
      err: expect.stringContaining('--simulate needs --table'),
    });
    expect(await advise(on, '--table', EVENTS, '--simulate', 'nope:1')).toMatchObject({ code: 1, err: expect.stringContaining('nope') });
  });

  it('says what is wrong: unknown table or instance, no server there', async () => {
    expect(await advise(on, '--table', 'nope')).toMatchObject({ code: 1, err: expect.stringContaining('not found') });
    expect(await advise(on, '--instance', 'ghost')).toMatchObject({
      code: 2,
      err: expect.stringContaining(`no such instance (the server has --project ${PROJECT} --instance ${INSTANCE})`),
    });
    const gone = await runCli(['advise', '--server', 'localhost:1'], {
      stdout: () => undefined,
      stderr: (l) => expect(l).toMatch(/cannot reach the tabletop HTTP server at localhost:1/),
      onSignal: () => () => undefined,
      exitNow: () => undefined,
    });
    expect(gone).toBe(1);
  });
});
