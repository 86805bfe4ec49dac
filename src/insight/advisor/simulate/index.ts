// STAND-IN by helper P (issue 22): helper S's simulate() and renderSimulation() replace this file at the merge. It
// exists only so that P's plumbing (HTTP route, CLI) compiles and its tests run; it simulates nothing.
import { invalidArgument } from '../../../model/errors.js';
import type { SimulationJson, SimulationSide, TableSample } from '../types.js';

const STEPS = ['delimiter', 'salt', 'promote', 'reverse', 'reverse-timestamp', 'pad'];

export function simulate(table: TableSample, transform: string, opts: { nodes: number }): SimulationJson {
  const steps = transform.split(',').map((s) => s.split(/[:=]/)[0]!);
  if (transform === '' || steps.some((s) => !STEPS.includes(s))) {
    throw invalidArgument(`bad transform "${transform}": steps separated by ",", each one of ${STEPS.join(', ')}`);
  }
  const side: SimulationSide = { tablets: [], nodes: [], maxTabletShare: 0, maxNodeShare: 0 };
  return {
    table: table.name.table,
    transform,
    description: transform,
    nodes: opts.nodes,
    keysSampled: table.keys.length,
    examples: [],
    before: side,
    after: side,
    verdict: 'stand-in: nothing simulated',
  };
}

export function renderSimulation(s: SimulationJson): string {
  return [`TABLE ${s.table}  TRANSFORM ${s.transform}  NODES ${s.nodes}`, s.verdict].join('\n');
}
