import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cbtWith } from '../harness/cbt.js';
import { useTarget } from '../harness/suite.js';
import { selectedTargets } from '../harness/targets.js';
import { expectedFor, normalizeCbtOutput, parseTranscript, rewriteTranscript } from './transcript.js';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'testdata');
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.txt'))
  .sort();
const REWRITE = process.env['REWRITE'] === '1';
let instances = 0;

/**
 * Every transcript in testdata/ against every target. Each transcript runs
 * in an instance of its own, so `cbt ls` sees only its tables.
 */
describe.each(selectedTargets())('cbt transcripts (%s)', (kind) => {
  const ctx = useTarget(kind);

  it.each(FILES)(
    '%s',
    async (file) => {
      const full = path.join(DIR, file);
      const steps = parseTranscript(readFileSync(full, 'utf8'), file);
      const instance = `cbt-${process.pid.toString(36)}-${(++instances).toString(36)}`;
      const startedMs = Date.now() - 1000;
      const actual: string[] = [];
      for (const step of steps) {
        const result = await cbtWith(ctx.target, { instance }, ...step.args);
        actual.push(normalizeCbtOutput(result, startedMs, Date.now() + 1000));
      }
      if (REWRITE) rewriteTranscript(full, steps, actual, kind);
      const show = (outputs: readonly string[]) => steps.map((s, i) => `${file}:${s.line}: cbt ${s.command}\n${outputs[i] ?? ''}`);
      expect(show(actual)).toEqual(show(steps.map((s) => expectedFor(s, kind))));
    },
    120_000,
  );
});
