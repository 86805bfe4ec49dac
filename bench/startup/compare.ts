import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { num } from '../report/format.js';
import { cleanUpAll } from '../servers/cleanup.js';
import { spread } from '../stats/summary.js';
import type { ProbeClient, ProbeResult, StartupVariant } from './protocol.js';
import { createProber } from './run-probe.js';

/**
 * Start-up of two builds of tabletop, alternating run by run (A B A B ...),
 * through the benchmark's probe (probe.ts): what a start-up change saves, on
 * a noisy machine.
 *
 *   npx tsx bench/startup/compare.ts --build .tmp/dist-before [--runs 9] [--variants in-process,serve-memory,serve-durable] [--node-client]
 *
 * `--build DIR` is the other build's dist directory (a copy of dist/ from
 * before a change, kept under the repository so that it finds node_modules);
 * the current build is dist/. Builds nothing: run `npm run build` first.
 * Prints the medians [min–max] of each figure per variant and build.
 */

const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VARIANTS: readonly StartupVariant[] = ['in-process', 'serve-memory', 'serve-durable', 'emulator'];

const { values } = parseArgs({
  options: {
    build: { type: 'string' },
    runs: { type: 'string', default: '9' },
    variants: { type: 'string', default: 'in-process,serve-memory,serve-durable' },
    'node-client': { type: 'boolean', default: false },
  },
});
if (values.build === undefined) throw new Error("--build DIR (another build's dist directory) is required");
const builds = [
  { name: 'dist', dir: path.join(REPO_ROOT, 'dist') },
  { name: values.build, dir: path.resolve(values.build) },
];
const variants = values.variants.split(',').map((v) => {
  const found = VARIANTS.find((x) => x === v);
  if (found === undefined) throw new Error(`--variants: unknown "${v}" (known: ${VARIANTS.join(', ')})`);
  return found;
});
const runs = Number(values.runs);
const client: ProbeClient = values['node-client'] ? 'node' : 'raw';

const prober = createProber(REPO_ROOT);
const results = new Map<string, ProbeResult[]>();
try {
  for (let run = 1; run <= runs; run++) {
    for (const variant of variants) {
      for (const build of builds) {
        const r = await prober.run(variant, client, build.dir);
        const key = `${variant}\t${build.name}`;
        results.set(key, [...(results.get(key) ?? []), r]);
        process.stdout.write(
          `run ${run}/${runs} ${variant} ${build.name}: first call ${num(r.firstCallMs)} ms, idle RSS ${num(r.rssIdleBytes / 2 ** 20)} MiB\n`,
        );
      }
    }
  }
} finally {
  await cleanUpAll((line) => process.stderr.write(line + '\n'));
}

const FIGURES: readonly [string, (r: ProbeResult) => number][] = [
  ['ms until listening', (r) => r.readyMs],
  ['ms to first call', (r) => r.firstCallMs],
  ['ms to first read', (r) => r.firstReadMs],
  ['server CPU ms to first read', (r) => r.cpuMs],
  ['MiB RSS when listening', (r) => r.rssReadyBytes / 2 ** 20],
  ['MiB RSS idle after first read', (r) => r.rssIdleBytes / 2 ** 20],
];
process.stdout.write(`\nmedians [min–max] over ${runs} alternating runs, ${client} client\n`);
for (const variant of variants) {
  process.stdout.write(`\n${variant}\n`);
  for (const [label, value] of FIGURES) {
    const cells = builds.map((b) => {
      const s = spread((results.get(`${variant}\t${b.name}`) ?? []).map(value));
      return s === undefined ? '–' : `${num(s.median)} [${num(s.min)}–${num(s.max)}]`;
    });
    process.stdout.write(`  ${label.padEnd(30)} ${builds.map((b, i) => `${b.name}: ${cells[i]}`).join('   ')}\n`);
  }
}
