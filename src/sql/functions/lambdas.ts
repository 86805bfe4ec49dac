import { BOOL, INT64, type SqlType, type SqlValue } from '../types.js';

/**
 * Array functions that take a lambda (`e -> body` or `(e, i) -> body`, `i` the element's 0-based offset):
 * ARRAY_FILTER, ARRAY_TRANSFORM, ARRAY_INCLUDES, ARRAY_OFFSET(S) and the value forms' lambda variants.
 * The analyzer binds the body with the parameters' types; `apply` runs it per element.
 */
export interface LambdaFunction {
  readonly name: string;
  /** The body's required type (coerced), given the element type; undefined: any. */
  bodyType(element: SqlType): SqlType | undefined;
  /** The result type, given the element type and the bound body's type. */
  result(element: SqlType, body: SqlType): SqlType;
  apply(array: readonly SqlValue[], body: (element: SqlValue, index: number) => SqlValue): SqlValue;
}

export const LAMBDA_FUNCTIONS: ReadonlyMap<string, LambdaFunction> = new Map(
  (
    [
      {
        name: 'ARRAY_FILTER',
        bodyType: () => BOOL,
        result: (e) => ({ kind: 'ARRAY', element: e }),
        apply: (a, body) => a.filter((x, i) => body(x, i) === true),
      },
      {
        name: 'ARRAY_TRANSFORM',
        bodyType: () => undefined,
        result: (_e, body) => ({ kind: 'ARRAY', element: body }),
        apply: (a, body) => a.map((x, i) => body(x, i)),
      },
      {
        name: 'ARRAY_INCLUDES',
        bodyType: () => BOOL,
        result: () => BOOL,
        apply: (a, body) => a.some((x, i) => body(x, i) === true),
      },
      {
        name: 'ARRAY_OFFSET',
        bodyType: () => BOOL,
        result: () => INT64,
        apply: (a, body) => {
          const i = a.findIndex((x, k) => body(x, k) === true);
          return i < 0 ? null : BigInt(i);
        },
      },
      {
        name: 'ARRAY_OFFSETS',
        bodyType: () => BOOL,
        result: () => ({ kind: 'ARRAY', element: INT64 }),
        apply: (a, body) => a.flatMap((x, i) => (body(x, i) === true ? [BigInt(i)] : [])),
      },
    ] satisfies LambdaFunction[]
  ).map((f) => [f.name, f]),
);
