import { BOOL } from '../types.js';
import { sqlEquals } from '../values/compare.js';
import { type ScalarFunction, defineFunction } from './registry.js';

/** Conditional expressions: only the chosen branch is evaluated (an error in another one does not fire). */

export const IF = defineFunction({
  name: 'IF',
  signatures: [{ params: [BOOL, 'T', 'T'], result: (_a, t) => t! }],
  evalLazy: ([c, a, b]) => (c!() === true ? a!() : b!()),
});

export const IFNULL = defineFunction({
  name: 'IFNULL',
  signatures: [{ params: ['T', 'T'], result: (_a, t) => t! }],
  evalLazy: ([a, b]) => {
    const v = a!();
    return v === null ? b!() : v;
  },
});

export const COALESCE = defineFunction({
  name: 'COALESCE',
  signatures: [{ params: ['T'], repeated: true, result: (_a, t) => t! }],
  evalLazy: (args) => {
    for (const a of args) {
      const v = a();
      if (v !== null) return v;
    }
    return null;
  },
});

export const NULLIF = defineFunction({
  name: 'NULLIF',
  signatures: [{ params: ['T', 'T'], result: (_a, t) => t! }],
  strict: false,
  eval: ([a, b]) => (a !== null && sqlEquals(a!, b!) === true ? null : a!),
});

/** `CASE WHEN c1 THEN r1 ... ELSE e END` as `$case_when(c1, r1, ..., e)` (the analyzer adds a NULL ELSE). */
export const CASE_WHEN = defineFunction({
  name: '$case_when',
  signatures: [{ params: ['ANY'], repeated: true, result: (a) => a[1]! }],
  evalLazy: (args) => {
    for (let i = 0; i + 1 < args.length; i += 2) if (args[i]!() === true) return args[i + 1]!();
    return args[args.length - 1]!();
  },
});

/** `CASE x WHEN v1 THEN r1 ... ELSE e END` as `$case_value(x, v1, r1, ..., e)`. */
export const CASE_VALUE = defineFunction({
  name: '$case_value',
  signatures: [{ params: ['ANY'], repeated: true, result: (a) => a[2]! }],
  evalLazy: (args) => {
    const x = args[0]!();
    for (let i = 1; i + 1 < args.length; i += 2) if (x !== null && sqlEquals(x, args[i]!()) === true) return args[i + 1]!();
    return args[args.length - 1]!();
  },
});

export const CONDITIONAL_FUNCTIONS: readonly ScalarFunction[] = [IF, IFNULL, COALESCE, NULLIF, CASE_WHEN, CASE_VALUE];
