import { lookup } from 'node:dns/promises';
import net from 'node:net';
import tls from 'node:tls';
import type { Logger } from './logger.js';
import type { TlsOptions } from './tls-options.js';

/**
 * The gRPC server's listening sockets, owned by tabletop rather than by the
 * HTTP/2 server, so that connections can be vetted before it sees them:
 *  - a connection must send the HTTP/2 client preface
 *    ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") within `prefaceTimeoutMillis`, or it is
 *    reset (otherwise silent or trickling sockets stay open forever: a
 *    slowloris gap); bytes that cannot begin the preface (HTTP/1, TLS, noise)
 *    are reset at once;
 *  - with TLS (GuardOptions.tls), the same after the handshake, and a
 *    connection that does not open with one (plain text) is reset at once;
 *  - at most `maxConnections` connections in all (vetted or not): at the cap
 *    a new connection asks `makeRoom` to close the connection idle the
 *    longest (no call in flight), and is refused only when none is idle, so
 *    that peers which connect and then say nothing never hold every slot.
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
  /** At the cap: closes an idle connection that was handed over (true) to make room, or finds none (false: refuse). */
  readonly makeRoom?: (() => boolean) | undefined;
  /**
   * TLS: a connection must open with a TLS handshake (ALPN h2; with
   * `clientCa`, a client certificate that chains to it), which must finish
   * within `prefaceTimeoutMillis`, and then send the preface within as long
   * again; the decrypted socket is handed over. Without it, plain text (h2c).
   */
  readonly tls?: TlsOptions | undefined;
  /** Told, at most once per 10 s per kind, why connections were refused (plain text on a TLS port, TLS on a plain port, failed handshakes). */
  readonly logger?: Logger | undefined;
}

export interface GuardedListener {
  readonly port: number;
  /** Stops accepting and drops connections that were never handed over. */
  close(): Promise<void>;
}

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
/** The first byte of a TLS record carrying a handshake (a ClientHello opens with it). */
const TLS_HANDSHAKE = 0x16;

/** Closes a connection that is refused: a TCP reset for a plain socket; a TLS socket (whose handle is not TCP) is destroyed. */
function drop(socket: net.Socket): void {
  if (socket instanceof tls.TLSSocket) socket.destroy();
  else socket.resetAndDestroy();
}

/** Whether `got` is a prefix of the preface (or starts with all of it). */
function prefaceSoFar(got: Buffer): boolean {
  const n = Math.min(got.length, PREFACE.length);
  return got.compare(PREFACE, 0, n, 0, n) === 0;
}

/**
 * Waits for the preface on `socket` (until `deadline` fires or bytes that
 * cannot begin it arrive: then `refuse`), then hands the socket over paused,
 * with the bytes read put back. Returns a function that stops waiting.
 */
function awaitPreface(socket: net.Socket, ok: () => void, refuse: (first: Buffer) => void): () => void {
  let got: Buffer | undefined;
  const forget = (): void => {
    socket.off('data', onData);
    socket.off('close', forget);
    socket.off('error', forget);
  };
  const onData = (chunk: Buffer): void => {
    got = got === undefined ? chunk : Buffer.concat([got, chunk]);
    if (!prefaceSoFar(got)) {
      forget();
      refuse(got);
      return;
    }
    if (got.length < PREFACE.length) return;
    forget();
    socket.pause();
    socket.unshift(got);
    ok();
  };
  socket.once('close', forget);
  socket.once('error', forget);
  socket.on('data', onData);
  return forget;
}

/** Logs a kind of refusal at most once per 10 s (scanners and misconfigured clients retry in loops). */
function refusalNotes(logger: Logger | undefined): (kind: string, message: string) => void {
  const last = new Map<string, number>();
  return (kind, message) => {
    if (logger === undefined) return;
    const now = Date.now();
    if (now - (last.get(kind) ?? -Infinity) < 10_000) return;
    last.set(kind, now);
    logger.warn(message, { event: 'connection-refused', reason: kind });
  };
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
  const note = refusalNotes(opts.logger);
  const tlsServer = opts.tls === undefined ? undefined : tlsHandshakes(opts.tls, opts.prefaceTimeoutMillis);
  /** Raw sockets whose TLS handshake runs, by remote address and port (the TLS socket shows the same). */
  const handshaking = new Map<string, net.Socket>();
  const peer = (s: net.Socket): string => `${s.remoteAddress}|${s.remotePort}`;

  /** Resets `socket` unless the returned function is called within the preface timeout. */
  const deadline = (socket: net.Socket): (() => void) => {
    pending.add(socket);
    const timer = setTimeout(() => {
      pending.delete(socket);
      drop(socket);
    }, opts.prefaceTimeoutMillis);
    timer.unref();
    return () => {
      clearTimeout(timer);
      pending.delete(socket);
    };
  };

  /** Guards `socket` until it sent the preface (then `accept`), or drops it. */
  const guard = (socket: net.Socket, onRefused?: (got: Buffer) => void): void => {
    const done = deadline(socket);
    const stop = awaitPreface(
      socket,
      () => {
        done();
        accept(socket);
      },
      (got) => {
        done();
        drop(socket);
        onRefused?.(got);
      },
    );
    socket.once('close', () => {
      done();
      stop();
    });
  };

  const onPlainConnection = (socket: net.Socket): void =>
    guard(socket, (got) => {
      if (got[0] === TLS_HANDSHAKE)
        note(
          'tls-on-plain-port',
          `a TLS connection from ${socket.remoteAddress} to the plain-text gRPC port was closed (the server has no --tls-cert; connect without TLS)`,
        );
    });

  const onTlsConnection = (socket: net.Socket): void => {
    // The first bytes must open a TLS handshake; then the TLS server takes the socket (the bytes read are put back).
    const forget = deadline(socket);
    socket.once('close', forget);
    socket.on('error', forget); // the TLS socket reports the connection's errors once it has it
    socket.once('data', (chunk: Buffer) => {
      forget();
      if (chunk[0] !== TLS_HANDSHAKE) {
        note(
          'plain-on-tls-port',
          `a plain-text connection from ${socket.remoteAddress} to the TLS gRPC port was closed (connect with TLS)`,
        );
        socket.resetAndDestroy();
        return;
      }
      socket.pause();
      socket.unshift(chunk);
      const key = peer(socket);
      handshaking.set(key, socket);
      socket.once('close', () => handshaking.get(key) === socket && handshaking.delete(key));
      tlsServer!.emit('connection', socket);
    });
  };

  tlsServer?.on('secureConnection', (secure: tls.TLSSocket) => {
    handshaking.delete(peer(secure));
    guard(secure);
  });
  tlsServer?.on('tlsClientError', (err: Error, secure: tls.TLSSocket) => {
    const hint = /hang up|ECONNRESET/.test(err.message) ? " (a client that does not trust the server's certificate hangs up)" : '';
    note('tls-handshake', `a TLS handshake with a client failed: ${err.message}${hint}`);
    secure.destroy();
  });

  let open = 0;
  const vetted = tlsServer === undefined ? onPlainConnection : onTlsConnection;
  const onConnection = (socket: net.Socket): void => {
    if (open >= opts.maxConnections && opts.makeRoom?.() !== true) {
      drop(socket);
      return;
    }
    open++;
    socket.once('close', () => open--);
    vetted(socket);
  };
  let bound = port;
  let firstError: Error | undefined;
  for (const address of addresses) {
    const listener = net.createServer(onConnection);
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
      for (const s of handshaking.values()) s.destroy();
      handshaking.clear();
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

/** A TLS server that listens nowhere: the guard hands it the connections that open with a handshake. */
function tlsHandshakes(opts: TlsOptions, handshakeTimeout: number): tls.Server {
  return tls.createServer({
    cert: opts.cert,
    key: opts.key,
    ALPNProtocols: ['h2'],
    handshakeTimeout,
    ...(opts.clientCa === undefined ? {} : { ca: opts.clientCa, requestCert: true, rejectUnauthorized: true }),
  });
}
