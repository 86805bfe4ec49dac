/**
 * The RowFilter language of the Data API, as the database uses it: compile a
 * filter once, then apply it per row. See ast.ts for the shape (whose types
 * the API and the server's conversion layer import from there), validate.ts
 * for the rules, nodes.ts for the evaluation contract.
 */
export { type CompiledFilter, type CompileOptions, compileFilter } from './compile.js';
