import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { CliIo } from './cli-io.js';
import { type Plan, describeChange, isDestructive, planSchema } from './schema-diff.js';
import { type SchemaDocument, SchemaFileError, type TableSchema, parseSchema, renderSchema } from './schema-file.js';
import { type Endpoint, SchemaServer, ServerCallError } from './schema-server.js';

/**
 * `tabletop schema dump` and `tabletop schema apply FILE` (README: Schema as code): an instance's tables (or one
 * table's) as a reviewable JSON file (schema-file.ts), and the changes that make a server match one (schema-diff.ts),
 * shown first, confirmed when destructive, then made through the Table Admin API (schema-server.ts).
 * Exit codes: 0 done (or nothing to do); 1 the server failed, refused, or the user declined; 2 a bad command line or
 * file.
 */
export interface SchemaTarget {
  readonly endpoint?: string | undefined;
  readonly project: string;
  readonly instance: string;
  readonly table?: string | undefined;
}

export interface DumpOptions extends SchemaTarget {
  readonly out?: string | undefined;
  /** False (--no-splits): leave the splits out. */
  readonly splits?: boolean | undefined;
}

export interface ApplyOptions extends SchemaTarget {
  readonly yes?: boolean | undefined;
  readonly dryRun?: boolean | undefined;
}

/** Where to connect, with TABLETOP_TOKEN and the CAs of NODE_EXTRA_CA_CERTS (read here: grpc-js does not). */
function endpointOf(t: SchemaTarget, io: CliIo): Endpoint {
  const caFile = nonEmpty(io.env?.['NODE_EXTRA_CA_CERTS']);
  return {
    address: t.endpoint ?? nonEmpty(io.env?.['BIGTABLE_EMULATOR_HOST']) ?? 'localhost:8086',
    project: t.project,
    instance: t.instance,
    token: nonEmpty(io.env?.['TABLETOP_TOKEN']),
    // Node warns of a file it cannot read and goes on without it; so does this.
    extraCa: caFile === undefined || !existsSync(caFile) ? undefined : readFileSync(caFile),
  };
}

export async function schemaDumpCommand(opts: DumpOptions, io: CliIo): Promise<number> {
  const server = new SchemaServer(endpointOf(opts, io));
  try {
    const tables = await server.readSchema(opts.table);
    const strip = (t: TableSchema): TableSchema => (opts.splits === false ? { ...t, splits: [] } : t);
    let doc: SchemaDocument;
    if (opts.table === undefined) doc = { scope: 'instance', tables: new Map([...tables].map(([id, t]) => [id, strip(t)])) };
    else {
      const table = tables.get(opts.table);
      if (table === undefined) return fail('dump', `no table ${opts.table} in ${server.parent}`, 1, io);
      doc = { scope: 'table', tableId: opts.table, table: strip(table) };
    }
    const text = renderSchema(doc);
    if (opts.out === undefined) io.stdout(text.trimEnd());
    else {
      writeFileSync(opts.out, text);
      io.stderr(`Wrote the schema of ${tables.size} table${tables.size === 1 ? '' : 's'} of ${server.parent} to ${opts.out}`);
    }
    return 0;
  } catch (e) {
    if (e instanceof ServerCallError) return fail('dump', e.message, 1, io);
    throw e;
  } finally {
    await server.close();
  }
}

export async function schemaApplyCommand(file: string, opts: ApplyOptions, io: CliIo): Promise<number> {
  let doc: SchemaDocument;
  try {
    doc = parseSchema(readFileSync(file, 'utf8'));
  } catch (e) {
    if (e instanceof SchemaFileError || (e as NodeJS.ErrnoException).code !== undefined) {
      return fail('apply', `${file}: ${(e as Error).message}`, 2, io);
    }
    throw e;
  }
  const wanted = desiredTables(doc, opts.table);
  if (typeof wanted === 'string') return fail('apply', `${file}: ${wanted}`, 2, io);
  const server = new SchemaServer(endpointOf(opts, io), true);
  try {
    const only = doc.scope === 'table' || opts.table !== undefined ? [...wanted.tables.keys()][0] : undefined;
    const plan = planSchema(await server.readSchema(only), wanted.tables, wanted.prune);
    return await carryOut(plan, file, server, opts, io);
  } catch (e) {
    if (e instanceof ServerCallError) return fail('apply', e.message, 1, io);
    throw e;
  } finally {
    await server.close();
  }
}

/** The tables the file asks for, and whether tables it lacks are deleted (an instance file applied whole). */
function desiredTables(doc: SchemaDocument, table: string | undefined): { tables: Map<string, TableSchema>; prune: boolean } | string {
  if (doc.scope === 'table') return { tables: new Map([[table ?? doc.tableId, doc.table]]), prune: false };
  if (table === undefined) return { tables: new Map(doc.tables), prune: true };
  const t = doc.tables.get(table);
  return t === undefined
    ? `has no table ${table} (it has ${[...doc.tables.keys()].join(', ') || 'none'})`
    : { tables: new Map([[table, t]]), prune: false };
}

async function carryOut(plan: Plan, file: string, server: SchemaServer, opts: ApplyOptions, io: CliIo): Promise<number> {
  if (plan.errors.length > 0) {
    io.stderr(`tabletop schema apply: ${file} cannot be applied to ${server.parent} (nothing was changed):`);
    for (const e of plan.errors) io.stderr(`  ${e}`);
    return 1;
  }
  if (plan.changes.length === 0) {
    io.stdout(`No changes: ${server.parent} matches ${file}.`);
    return 0;
  }
  const destructive = plan.changes.filter(isDestructive).length;
  io.stdout(`Changes to ${server.parent} (+ add, ~ change, - remove, ! loses data or access):`);
  for (const c of plan.changes) io.stdout(describeChange(c));
  io.stdout(
    `${plan.changes.length} change${plan.changes.length === 1 ? '' : 's'}${destructive > 0 ? `, ${destructive} destructive` : ''}.`,
  );
  if (opts.dryRun === true) {
    io.stdout('Dry run: nothing was changed.');
    return 0;
  }
  if (destructive > 0 && opts.yes !== true) {
    if (io.ask === undefined) {
      return fail(
        'apply',
        `refusing ${destructive} destructive change${destructive === 1 ? '' : 's'} without confirmation (stdin is not a terminal): run again with --yes to make them`,
        1,
        io,
      );
    }
    const answer = (await io.ask(`Make these changes, ${destructive} of them destructive? Type "yes" to go on: `)).trim().toLowerCase();
    if (answer !== 'yes' && answer !== 'y') {
      io.stdout('Nothing was changed.');
      return 1;
    }
  }
  let done = 0;
  for (const c of plan.changes) {
    try {
      await server.apply(c);
    } catch (e) {
      if (!(e instanceof ServerCallError)) throw e;
      io.stderr(`tabletop schema apply: ${describeChange(c).trim()}: ${e.message}`);
      io.stderr(`${done} of ${plan.changes.length} changes were made before it; run apply again to see what is left.`);
      return 1;
    }
    done++;
    io.stderr(`[${done}/${plan.changes.length}] ${describeChange(c).trim()}`);
  }
  io.stdout(`Applied ${done} change${done === 1 ? '' : 's'} to ${server.parent}.`);
  return 0;
}

function fail(command: string, message: string, code: number, io: CliIo): number {
  io.stderr(`tabletop schema ${command}: ${message}`);
  return code;
}

function nonEmpty(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v;
}
