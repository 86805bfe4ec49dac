import { lookup } from 'node:dns/promises';
import net from 'node:net';

/**
 * The gRPC server's listening sockets, owned by tabletop rather than by the
 * HTTP/2 server, so that connections can be vetted before it sees them:
 *  - a connection must send the HTTP/2 client preface
 *    ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") within `prefaceTimeoutMillis`, or it is
 *    reset (otherwise silent or trickling sockets stay open forever: a
 *    slowloris gap); bytes that cannot begin the preface (HTTP/1, TLS, noise)
 *    are reset at once;
 *  - at most `maxConnections` connections per listening address.
 * Accepted connections are handed to `accept` paused, with the bytes already
 * read put back first.
 *
 * Every address the host resolves to is bound (e.g. 127.0.0.1 and ::1 for
 * "localhost"), all on the same port; addresses the machine cannot bind (no
 * IPv6) are skipped as long as one is bound.
 */
export interface GuardOptions {
  readonly prefaceTimeoutMillis: number;
  readonly maxConnections: number;
}

export interface GuardedListener {
  readonly port: number;
  /** Stops accepting and drops connections that were never handed over. */
  close(): Promise<void>;
}

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/** Whether `got` is a prefix of the preface (or starts with all of it). */
function prefaceSoFar(got: Buffer): boolean {
  const n = Math.min(got.length, PREFACE.length);
  return got.compare(PREFACE, 0, n, 0, n) === 0;
}

export async function listenGuarded(
  accept: (socket: net.Socket) => void,
  host: string,
  port: number,
  opts: GuardOptions,
): Promise<GuardedListener> {
  const addresses = await resolve(host);
  const pending = new Set<net.Socket>();
  const listeners: net.Server[] = [];

  const onConnection = (socket: net.Socket): void => {
    pending.add(socket);
    let got: Buffer | undefined;
    const timer = setTimeout(() => {
      pending.delete(socket);
      socket.resetAndDestroy();
    }, opts.prefaceTimeoutMillis);
    timer.unref();
    const forget = (): void => {
      clearTimeout(timer);
      pending.delete(socket);
      socket.off('data', onData);
      socket.off('close', forget);
      socket.off('error', forget);
    };
    const onData = (chunk: Buffer): void => {
      got = got === undefined ? chunk : Buffer.concat([got, chunk]);
      if (!prefaceSoFar(got)) {
        forget();
        socket.resetAndDestroy();
        return;
      }
      if (got.length < PREFACE.length) return;
      forget();
      socket.pause();
      socket.unshift(got);
      accept(socket);
    };
    socket.once('close', forget);
    socket.once('error', forget);
    socket.on('data', onData);
  };

  let bound = port;
  let firstError: Error | undefined;
  for (const address of addresses) {
    const listener = net.createServer(onConnection);
    listener.maxConnections = opts.maxConnections;
    try {
      await new Promise<void>((ok, fail) => {
        listener.once('error', fail);
        listener.listen({ port: bound, host: address, exclusive: true }, () => {
          listener.off('error', fail);
          ok();
        });
      });
      bound = (listener.address() as net.AddressInfo).port;
      listeners.push(listener);
    } catch (e) {
      firstError ??= e as Error;
      // Port taken on the first address: nothing else will work either.
      if (listeners.length === 0 && (e as NodeJS.ErrnoException).code === 'EADDRINUSE') break;
    }
  }
  if (listeners.length === 0) throw firstError ?? new Error(`no address to listen on for host "${host}"`);

  return {
    port: bound,
    async close(): Promise<void> {
      await Promise.all(listeners.map((l) => new Promise<void>((done) => l.close(() => done()))));
      for (const s of pending) s.destroy();
      pending.clear();
    },
  };
}

async function resolve(host: string): Promise<string[]> {
  if (net.isIP(host) !== 0) return [host];
  const found = await lookup(host, { all: true, verbatim: true });
  const unique = [...new Set(found.map((a) => a.address))];
  if (unique.length === 0) throw new Error(`host "${host}" does not resolve to any address`);
  return unique;
}
