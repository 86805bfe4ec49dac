/** The what-if simulation: `simulate` (the JSON) and `renderSimulation` (the terminal view). */
export { simulate } from './simulate.js';
export { renderSimulation } from './render.js';
export { parseTransform, TRANSFORM_GRAMMAR } from './transform.js';
