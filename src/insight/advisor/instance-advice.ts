import { invalidArgument, notFound } from '../../model/errors.js';
import { type InstanceName, type TableName, tableNameString } from '../../model/names.js';
import { advise } from './advise.js';
import { type AdvisorDeps, gatherAdvisorInput } from './gather.js';
import { simulate } from './simulate/index.js';
import type { AdviceJson, SimulationJson } from './types.js';

/** The note of an advice made with recording off. */
export const RECORDING_OFF_NOTE =
  'recording is off (--insight off): the advice reads the stored keys, rows and tablets only; the rules that need recorded traffic (hot rows and tablets, scans, write order) said nothing';

/** Most nodes a simulation may be asked for. */
export const MAX_SIMULATED_NODES = 1000;

/**
 * The advice for an instance (or one table of it: `only`): gathers its input
 * and applies the rules. NotFound for an unknown instance or table.
 */
export async function instanceAdvice(deps: AdvisorDeps, instance: InstanceName, only?: string): Promise<AdviceJson> {
  const advice = advise(await gatherAdvisorInput(deps, instance, only), { thresholds: deps.advisorThresholds ?? {} });
  return deps.history === undefined ? { ...advice, notes: [...(advice.notes ?? []), RECORDING_OFF_NOTE] } : advice;
}

/**
 * The what-if simulation of `transform` on a table's sampled keys and
 * recorded traffic over `nodes` nodes (default: the node count of the
 * instance's first cluster). NotFound for an unknown table, InvalidArgument
 * for a bad transform or node count.
 */
export async function tableSimulation(deps: AdvisorDeps, table: TableName, transform: string, nodes?: number): Promise<SimulationJson> {
  if (nodes !== undefined && !(Number.isInteger(nodes) && nodes >= 1 && nodes <= MAX_SIMULATED_NODES)) {
    throw invalidArgument(`"nodes" must be a whole number from 1 to ${MAX_SIMULATED_NODES}, got ${nodes}`);
  }
  const instance: InstanceName = { project: table.project, instance: table.instance };
  const input = await gatherAdvisorInput(deps, instance, table.table);
  const sample = input.tables.find((t) => t.name.table === table.table);
  if (sample === undefined) throw notFound(`table ${tableNameString(table)} not found`); // deleted meanwhile
  const serveNodes = deps.db.listNodes(instance)[0]?.serveNodes ?? 1;
  return simulate(sample, transform, { nodes: nodes ?? Math.max(1, serveNodes) });
}
