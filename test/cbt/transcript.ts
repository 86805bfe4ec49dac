import { readFileSync, writeFileSync } from 'node:fs';
import { EMULATOR_DIVERGENCES } from '../harness/divergences.js';
import type { DivergenceId } from '../harness/divergences.js';
import type { TargetKind } from '../harness/targets.js';

/**
 * cbt transcripts: data-driven tests in the style of Pebble's datadriven
 * files. A transcript is a sequence of commands, each followed by the output
 * cbt must print:
 *
 *   # a comment
 *   cbt read t prefix=r1
 *   ----
 *   ----------------------------------------
 *   r1
 *   ...
 *
 * The output runs until the next `cbt ` line or `#` comment line; trailing
 * blank lines are ignored. A failing command's output is
 * `exit N: <stderr>` (see normalizeCbtOutput). Where Google's emulator is
 * known to be wrong, a second section gives its output and names the
 * divergence:
 *
 *   ---- emulator: unknown-family-code
 *   exit 1: Applying mutation: rpc error: code = Unknown
 *
 * Arguments are split on spaces; '...' and "..." quote.
 */
export interface TranscriptStep {
  readonly line: number;
  readonly command: string;
  readonly args: readonly string[];
  readonly expected: string;
  readonly emulator?: { readonly divergence: DivergenceId; readonly expected: string };
}

const EMULATOR_SECTION = /^---- emulator: (\S+)$/;

export function parseTranscript(text: string, file: string): TranscriptStep[] {
  const lines = text.split('\n');
  const steps: TranscriptStep[] = [];
  let i = 0;
  const isBoundary = (l: string): boolean => l.startsWith('cbt ') || l.startsWith('#');
  while (i < lines.length) {
    const line = lines[i] ?? '';
    if (line.trim() === '' || line.startsWith('#')) {
      i++;
      continue;
    }
    if (!line.startsWith('cbt ')) throw new Error(`${file}:${i + 1}: expected a cbt command, got: ${line}`);
    const start = i + 1;
    const command = line.slice(4);
    i++;
    if (lines[i] !== '----') throw new Error(`${file}:${i + 1}: expected ---- after the command`);
    i++;
    const expected: string[] = [];
    while (i < lines.length && !isBoundary(lines[i] ?? '') && !EMULATOR_SECTION.test(lines[i] ?? '')) expected.push(lines[i++] ?? '');
    let emulator: TranscriptStep['emulator'];
    const m = EMULATOR_SECTION.exec(lines[i] ?? '');
    if (m) {
      const divergence = m[1] ?? '';
      if (!(divergence in EMULATOR_DIVERGENCES)) throw new Error(`${file}:${i + 1}: unknown divergence ${divergence}`);
      i++;
      const emu: string[] = [];
      while (i < lines.length && !isBoundary(lines[i] ?? '')) emu.push(lines[i++] ?? '');
      emulator = { divergence: divergence as DivergenceId, expected: trimEnd(emu) };
    }
    steps.push({
      line: start,
      command,
      args: splitArgs(command, `${file}:${start}`),
      expected: trimEnd(expected),
      ...(emulator ? { emulator } : {}),
    });
  }
  return steps;
}

function trimEnd(lines: string[]): string {
  return lines.join('\n').replace(/\s+$/, '');
}

export function splitArgs(command: string, where: string): string[] {
  const args: string[] = [];
  let current = '';
  let quote: string | undefined;
  let inArg = false;
  for (const ch of command) {
    if (quote) {
      if (ch === quote) quote = undefined;
      else current += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      inArg = true;
    } else if (ch === ' ') {
      if (inArg) args.push(current);
      current = '';
      inArg = false;
    } else {
      current += ch;
      inArg = true;
    }
  }
  if (quote) throw new Error(`${where}: unterminated quote`);
  if (inArg) args.push(current);
  return args;
}

/** What a step must print on `kind`. */
export function expectedFor(step: TranscriptStep, kind: TargetKind): string {
  return kind === 'emulator' && step.emulator ? step.emulator.expected : step.expected;
}

const TIMESTAMP = /\b(\d{4})\/(\d\d)\/(\d\d)-(\d\d):(\d\d):(\d\d)\.(\d{6})\b/g;

/**
 * The comparable form of a cbt run: stdout with trailing whitespace
 * trimmed, or for a failure `exit N: ` and stderr without cbt's start-up
 * chatter, log timestamps and the server's free-text error description
 * (`rpc error: code = NotFound desc = ...` keeps only the code: messages
 * are each server's own). Cell timestamps within [fromMs, toMs] (server or
 * client "now") print as `<now>`.
 */
export function normalizeCbtOutput(result: { stdout: string; stderr: string; code: number }, fromMs: number, toMs: number): string {
  const now = (text: string): string =>
    text.replace(TIMESTAMP, (all, y: string, mo: string, d: string, h: string, mi: string, s: string, us: string) => {
      const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) + Math.floor(Number(us) / 1000);
      return ms >= fromMs && ms <= toMs ? '<now>' : all;
    });
  if (result.code === 0) return now(result.stdout).replace(/\s+$/, '');
  const err = result.stderr
    .split('\n')
    .map((l) => l.replace(/^\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d /, ''))
    .filter((l) => l.trim() !== '' && !l.startsWith('-creds flag unset'))
    .map((l) => l.replace(/(rpc error: code = \w+) desc = .*$/, '$1'))
    .join('\n');
  return `exit ${result.code}: ${err}`;
}

/** Rewrites the expected outputs of `file` with `actual` (REWRITE=1), keeping emulator sections where `kind` is not the emulator. */
export function rewriteTranscript(file: string, steps: readonly TranscriptStep[], actual: readonly string[], kind: TargetKind): void {
  const lines = readFileSync(file, 'utf8').split('\n');
  const out: string[] = [];
  let i = 0;
  for (const [n, step] of steps.entries()) {
    // Copy comments and blank lines up to the command.
    while (i < step.line - 1) out.push(lines[i++] ?? '');
    out.push(lines[i++] ?? '', '----');
    i++;
    const mainEnd = (() => {
      let j = i;
      while (
        j < lines.length &&
        !(lines[j] ?? '').startsWith('cbt ') &&
        !(lines[j] ?? '').startsWith('#') &&
        !EMULATOR_SECTION.test(lines[j] ?? '')
      )
        j++;
      return j;
    })();
    const got = actual[n] ?? '';
    const writeEmulator = kind === 'emulator' && step.emulator !== undefined;
    if (!writeEmulator) {
      out.push(...(got === '' ? [] : got.split('\n')));
      if (!EMULATOR_SECTION.test(lines[mainEnd] ?? '')) out.push('');
      i = mainEnd;
    } else {
      while (i < mainEnd) out.push(lines[i++] ?? '');
    }
    if (EMULATOR_SECTION.test(lines[i] ?? '')) {
      out.push(lines[i++] ?? '');
      let j = i;
      while (j < lines.length && !(lines[j] ?? '').startsWith('cbt ') && !(lines[j] ?? '').startsWith('#')) j++;
      if (writeEmulator) {
        out.push(...(got === '' ? [] : got.split('\n')), '');
        i = j;
      } else {
        while (i < j) out.push(lines[i++] ?? '');
      }
    }
  }
  while (i < lines.length) out.push(lines[i++] ?? '');
  writeFileSync(file, out.join('\n'));
}
