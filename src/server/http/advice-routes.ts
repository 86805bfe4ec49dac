import type { AdvisorDeps } from '../../insight/advisor/gather.js';
import { instanceAdvice, tableSimulation } from '../../insight/advisor/instance-advice.js';
import type { AdviceJson, SimulationJson } from '../../insight/advisor/types.js';
import { TRANSFORM_GRAMMAR } from '../../insight/advisor/simulate/index.js';
import { invalidArgument } from '../../model/errors.js';
import type { InstanceName, TableName } from '../../model/names.js';
import { checkParams, single } from './insight-routes.js';

/**
 * The schema advisor's endpoints of the JSON API (json-api.ts routes them):
 *   .../instances/{i}/advice[?table=T]
 *       the advice (AdviceJson, src/insight/advisor/types.ts) for every table
 *       of the instance, or for table T; 404 for an unknown instance or
 *       table. With recording off it still answers, from the stored keys and
 *       rows only, and says so in `notes` (the traffic rules are silent).
 *   .../instances/{i}/tables/{t}/simulate?transform=X[&nodes=N]
 *       the what-if simulation of the key transformation X (SimulationJson)
 *       over N nodes (default: the node count of the instance's first
 *       cluster); 400 for a bad transform (the message gives the grammar).
 */

const ADVICE_PARAMS = ['table'] as const;
const SIMULATE_PARAMS = ['transform', 'nodes'] as const;

export function adviceRoute(deps: AdvisorDeps, instance: InstanceName, query: URLSearchParams): Promise<AdviceJson> {
  checkParams(query, ADVICE_PARAMS);
  const table = single(query, 'table');
  return instanceAdvice(deps, instance, table === '' ? undefined : table);
}

export async function simulateRoute(deps: AdvisorDeps, table: TableName, query: URLSearchParams): Promise<SimulationJson> {
  checkParams(query, SIMULATE_PARAMS);
  deps.db.getTable(table); // NotFound first
  const transform = single(query, 'transform');
  if (transform === undefined || transform === '') {
    throw invalidArgument(`Give the key transformation as "transform" (?transform=promote:2). ${TRANSFORM_GRAMMAR}`);
  }
  const nodesText = single(query, 'nodes');
  let nodes: number | undefined;
  if (nodesText !== undefined && nodesText !== '') {
    nodes = /^\d{1,6}$/.test(nodesText) ? Number(nodesText) : NaN;
    if (Number.isNaN(nodes)) throw invalidArgument(`Invalid "nodes": ${JSON.stringify(nodesText)}: give a whole number of nodes`);
  }
  return tableSimulation(deps, table, transform, nodes);
}
