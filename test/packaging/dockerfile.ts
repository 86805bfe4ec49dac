import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../harness/targets.js';

/**
 * The checkout's Dockerfile, read as Docker reads the parts a test can check
 * without a Docker engine: the instructions of its last stage (the image that
 * runs), with continuation lines joined and comments dropped.
 */
export interface RuntimeStage {
  /** FROM's argument. */
  readonly from: string;
  readonly user: string | undefined;
  readonly volumes: readonly string[];
  readonly exposed: readonly number[];
  /** exec-form arrays. */
  readonly entrypoint: readonly string[];
  readonly cmd: readonly string[];
  /** The HEALTHCHECK's options (--interval=...) and its exec-form command. */
  readonly healthcheck: { readonly options: readonly string[]; readonly cmd: readonly string[] } | undefined;
  /** The source paths of COPY --from=<stage> instructions, by destination. */
  readonly copiedFromBuild: ReadonlyMap<string, string>;
}

export function readRuntimeStage(file = path.join(REPO_ROOT, 'Dockerfile')): RuntimeStage {
  const instructions = readFileSync(file, 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const m = /^(\S+)\s+(.*)$/.exec(l);
      return { op: (m?.[1] ?? l).toUpperCase(), arg: m?.[2] ?? '' };
    });
  const lastFrom = instructions.map((i) => i.op).lastIndexOf('FROM');
  const stage = instructions.slice(lastFrom);
  const last = (op: string): string | undefined => stage.filter((i) => i.op === op).at(-1)?.arg;
  const execForm = (op: string, arg: string | undefined): string[] => {
    if (arg === undefined) return [];
    const parsed: unknown = JSON.parse(arg);
    if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string')) throw new Error(`${op} is not in exec form: ${arg}`);
    return parsed as string[];
  };
  const health = last('HEALTHCHECK');
  const healthMatch = health === undefined ? null : /^((?:--\S+\s+)*)CMD\s+(\[.*\])$/.exec(health);
  if (health !== undefined && healthMatch === null) throw new Error(`HEALTHCHECK is not "options CMD [exec form]": ${health}`);
  const copied = new Map<string, string>();
  for (const i of stage.filter((s) => s.op === 'COPY' && s.arg.startsWith('--from='))) {
    const [, src, dest] = i.arg.split(/\s+/);
    if (src !== undefined && dest !== undefined) copied.set(dest, src);
  }
  return {
    from: stage[0]?.arg ?? '',
    user: last('USER'),
    volumes: stage.filter((i) => i.op === 'VOLUME').flatMap((i) => i.arg.split(/\s+/)),
    exposed: stage.filter((i) => i.op === 'EXPOSE').flatMap((i) => i.arg.split(/\s+/).map((p) => Number.parseInt(p, 10))),
    entrypoint: execForm('ENTRYPOINT', last('ENTRYPOINT')),
    cmd: execForm('CMD', last('CMD')),
    healthcheck:
      healthMatch === null
        ? undefined
        : { options: (healthMatch[1] ?? '').trim().split(/\s+/).filter(Boolean), cmd: execForm('HEALTHCHECK', healthMatch[2]) },
    copiedFromBuild: copied,
  };
}
