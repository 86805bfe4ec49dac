import path from 'node:path';
import { gcMeter } from './gc-meter.js';
import { fileURLToPath, pathToFileURL } from 'node:url';


/**
 * The server side of cpu-bench.ts, run as a forked child: an in-memory
 * tabletop on a free port with the transport named in argv[2]. Talks to the
 * driver over IPC: sends {port} once listening; answers "cpu" with
 * process.cpuUsage() and the time spent in GC so far; exits on "stop".
 *
 * The server code is loaded from dist/ (run `npm run build` first), as
 * `tabletop serve` runs it, not through tsx's on-the-fly transform; the
 * TABLETOP_DIST environment variable names another build to load instead,
 * and TABLETOP_TUNING (JSON) overrides server tunables.
 */

const dist = process.env['TABLETOP_DIST'] ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../dist');
const load = <T>(file: string): Promise<T> => import(pathToFileURL(path.join(dist, file)).href) as Promise<T>;
const { createDatabase } = await load<typeof import('../../../db/index.js')>('db/index.js');
const { createMemoryEngine } = await load<typeof import('../../../storage/memory/index.js')>('storage/memory/index.js');
const { silentLogger } = await load<typeof import('../../logger.js')>('server/logger.js');
const { startTabletopServer } = await load<typeof import('../../server.js')>('server/server.js');

const transport = process.argv[2] === 'grpc-js' ? 'grpc-js' : 'h2';
const db = await createDatabase({ engine: createMemoryEngine() });
const server = await startTabletopServer({
  db,
  host: '127.0.0.1',
  port: 0,
  httpPort: false,
  logger: silentLogger,
  storage: 'in memory',
  version: 'bench',
  tuning: { transport, ...(JSON.parse(process.env['TABLETOP_TUNING'] ?? '{}') as object) },
});
const gcMillis = gcMeter();
process.on('message', (m: unknown) => {
  if (m === 'cpu') process.send?.({ cpu: process.cpuUsage(), gcMillis: gcMillis() });
  else if (m === 'stop') void server.stop().then(() => db.close()).then(() => process.exit(0));
});
process.send?.({ port: server.port });
