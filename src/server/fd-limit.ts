import { readFileSync } from 'node:fs';

/**
 * The process's limit on open file descriptors, from /proc/self/limits
 * (Linux); undefined elsewhere or when unlimited. Node raises the soft limit
 * to the hard one when it starts, so the soft limit is what the hard one
 * allows; a server that can hold more connections than that would meet
 * EMFILE (new SSTables, commit-log files and connections all need one).
 */
export function openFilesLimit(limits = readLimits()): number | undefined {
  const line = limits?.split('\n').find((l) => l.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  return soft === undefined || !/^\d+$/.test(soft) ? undefined : Number(soft);
}

function readLimits(): string | undefined {
  try {
    return readFileSync('/proc/self/limits', 'latin1');
  } catch {
    return undefined;
  }
}

/** Descriptors the server needs beside its connections: data files, commit logs, workers, the HTTP port's own. */
const FILES_BESIDE_CONNECTIONS = 256;

/** A warning when `limit` is below what the connection caps (gRPC and HTTP) can hold open, else undefined. */
export function openFilesWarning(limit: number | undefined, grpcConnections: number, httpConnections: number): string | undefined {
  const needed = grpcConnections + httpConnections + FILES_BESIDE_CONNECTIONS;
  if (limit === undefined || limit >= needed) return undefined;
  return (
    `this process may open only ${limit} files, fewer than the ${needed} that ${grpcConnections} gRPC and ${httpConnections} HTTP connections ` +
    `and the data files can take: at that many connections, flushes and new connections would fail (EMFILE) until some close. ` +
    `Raise the hard limit (ulimit -Hn ${needed} in the shell that starts it, or LimitNOFILE=${needed} in a systemd unit).`
  );
}
