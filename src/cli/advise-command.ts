import { renderSimulation } from '../insight/advisor/simulate/index.js';
import { timeText } from '../insight/diagnostics/context.js';
import type { AdviceJson, EvidenceValue, Finding, SimulationJson } from '../insight/advisor/types.js';
import { parseTableName } from '../model/names.js';
import type { CliIo } from './cli-io.js';
import { HttpApiError, apiServer, chooseInstance, getApi, segment } from './http-api.js';

export interface AdviseOptions {
  readonly table?: string | undefined;
  readonly json?: boolean | undefined;
  readonly server?: string | undefined;
  readonly project?: string | undefined;
  readonly instance?: string | undefined;
  readonly simulate?: string | undefined;
  readonly nodes?: string | undefined;
}

const USAGE =
  'Usage: tabletop advise [--table T] [--json] [--server HOST:PORT] [--project P --instance I] [--simulate TRANSFORM [--nodes N]]';

/**
 * `tabletop advise`: the schema advisor's findings for an instance (or one
 * table), read from a running server's JSON API (`GET .../advice`), grouped
 * by severity (danger, warning, info) with their evidence and suggestion and
 * a summary line; `--json` prints the AdviceJson. `--simulate TRANSFORM`
 * (with `--table`) prints the what-if simulation instead (`GET
 * .../tables/T/simulate`). The instance: --project and --instance, or a full
 * table name; when either is left out, the one instance of the server that
 * matches what is given (an error lists them when there are several).
 * Exit code 0 whatever the findings (they are advice, not errors); 1 when the
 * server cannot be reached or answers an error; 2 for a bad command line.
 */
export async function adviseCommand(opts: AdviseOptions, io: CliIo): Promise<number> {
  const fail = (message: string, code: number): number => {
    io.stderr(`tabletop advise: ${message}`);
    return code;
  };
  let { project, instance, table } = opts;
  if (table?.startsWith('projects/') === true) {
    try {
      const n = parseTableName(table);
      ({ project, instance, table } = n);
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e), 2);
    }
  }
  if (opts.simulate !== undefined && table === undefined)
    return fail(`--simulate needs --table (the table whose keys to transform)\n${USAGE}`, 2);
  if (opts.nodes !== undefined && opts.simulate === undefined) return fail(`--nodes goes with --simulate\n${USAGE}`, 2);
  if (opts.nodes !== undefined && !/^[1-9]\d{0,5}$/.test(opts.nodes))
    return fail(`--nodes must be a whole number of nodes, got "${opts.nodes}"`, 2);
  const server = apiServer(opts.server, io.env);
  try {
    const chosen = await chooseInstance(server, project, instance);
    if (typeof chosen === 'string') return fail(chosen, 2);
    const base = `/api/v1/projects/${segment(chosen.project)}/instances/${segment(chosen.instance)}`;
    if (opts.simulate !== undefined) {
      const q = new URLSearchParams({ transform: opts.simulate, ...(opts.nodes === undefined ? {} : { nodes: opts.nodes }) });
      const simulation = await getApi<SimulationJson>(server, `${base}/tables/${segment(table!)}/simulate?${q}`);
      io.stdout(opts.json === true ? JSON.stringify(simulation, null, 2) : renderSimulation(simulation));
      return 0;
    }
    const advice = await getApi<AdviceJson>(server, `${base}/advice${table === undefined ? '' : `?table=${segment(table)}`}`);
    io.stdout(opts.json === true ? JSON.stringify(advice, null, 2) : renderAdvice(advice));
    return 0;
  } catch (e) {
    if (e instanceof HttpApiError) return fail(e.message, 1);
    throw e;
  }
}

const SEVERITIES = ['danger', 'warning', 'info'] as const;
const WIDTH = 100;

/**
 * The advice for a terminal: one group per severity present (DANGER,
 * WARNING, INFO), each finding as `[rule] table` with its message, evidence
 * (one line each), suggestion and the what-if command when one fits; the
 * notes; and a summary line.
 */
export function renderAdvice(advice: AdviceJson): string {
  const lines: string[] = [];
  for (const severity of SEVERITIES) {
    const findings = advice.findings.filter((f) => f.severity === severity);
    if (findings.length === 0) continue;
    lines.push(`${severity.toUpperCase()} (${findings.length})`, '');
    for (const f of findings) lines.push(...findingLines(f), '');
  }
  for (const note of advice.notes ?? []) lines.push(...wrapText(`Note: ${note}`, ''));
  if ((advice.notes ?? []).length > 0) lines.push('');
  lines.push(summary(advice));
  return lines.join('\n');
}

function findingLines(f: Finding): string[] {
  const out = [`[${f.rule}] ${f.table}`];
  out.push(...wrapText(f.message, '  '));
  const evidence = Object.entries(f.evidence);
  if (evidence.length > 0) {
    out.push('  Evidence:');
    for (const [name, value] of evidence) out.push(...wrapText(`${name}: ${evidenceText(value)}`, '    ', '      '));
  }
  out.push(...wrapText(`Suggestion: ${f.suggestion}`, '  '));
  if (f.simulate !== undefined) out.push(`  Try it: tabletop advise --table ${shellWord(f.table)} --simulate ${shellWord(f.simulate)}`);
  return out;
}

/** `s` as one shell word: as is when plain, else in single quotes. */
function shellWord(s: string): string {
  return /^[\w.:,@=%+/-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`;
}

function evidenceText(v: EvidenceValue): string {
  if (Array.isArray(v)) return v.map(String).join(', ');
  return String(v);
}

function summary(advice: AdviceJson): string {
  const count = (s: (typeof SEVERITIES)[number]) => advice.findings.filter((f) => f.severity === s).length;
  const tables = `${advice.tables.length} table${advice.tables.length === 1 ? '' : 's'}`;
  const window = `traffic ${timeText(advice.window)}`;
  if (advice.findings.length === 0) return `No findings for ${tables} of ${advice.instance} (${window}).`;
  const n = advice.findings.length;
  return `${n} finding${n === 1 ? '' : 's'} for ${tables} of ${advice.instance}: ${count('danger')} danger, ${count('warning')} warning, ${count('info')} info (${window}).`;
}

/** `text` cut into lines of at most WIDTH columns at spaces: the first after `indent`, the others after `more`. */
export function wrapText(text: string, indent: string, more = indent): string[] {
  const out: string[] = [];
  let line = '';
  const lead = (): string => (out.length === 0 ? indent : more);
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && lead().length + line.length + 1 + word.length > WIDTH) {
      out.push(lead() + line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') out.push(lead() + line);
  return out;
}
