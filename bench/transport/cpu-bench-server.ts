import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { reportToParent } from '../servers/ipc-child.js';

/**
 * The server side of cpu-bench.ts, run as a forked child: an in-memory
 * tabletop (the package's startServer()) on a free port with the transport
 * named in argv[2], reporting to the driver over IPC (servers/ipc-child.ts).
 *
 * The server code is loaded from dist/ (run `npm run build` first), as
 * `tabletop serve` runs it, not through tsx's on-the-fly transform; the
 * TABLETOP_DIST environment variable names another build to load instead,
 * and TABLETOP_TUNING (JSON) overrides server tunables.
 */

const dist = process.env['TABLETOP_DIST'] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist');
const { startServer } = (await import(pathToFileURL(path.join(dist, 'index.js')).href)) as typeof import('../../src/index.js');
const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

const transport = process.argv[2] === 'grpc-js' ? 'grpc-js' : 'h2';
const server = await startServer({
  host: '127.0.0.1',
  port: 0,
  httpPort: false,
  inMemory: true,
  logger: silent,
  tuning: { transport, ...(JSON.parse(process.env['TABLETOP_TUNING'] ?? '{}') as object) },
});
reportToParent(server.port, () => server.stop());
