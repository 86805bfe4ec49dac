import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * True when `host` reaches only this machine: localhost, 127.0.0.0/8, ::1 (and
 * their IPv4-mapped forms), or a name that resolves to nothing else.
 */
export async function isLoopbackOnly(host: string): Promise<boolean> {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(bare) !== 0) return isLoopbackAddress(bare);
  try {
    const addresses = await lookup(bare, { all: true });
    return addresses.length > 0 && addresses.every((a) => isLoopbackAddress(a.address));
  } catch {
    return false;
  }
}

function isLoopbackAddress(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice('::ffff:'.length) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** The warning printed when the server listens beyond loopback without authentication (`serve` needs --insecure then). */
export function openToNetworkWarning(host: string, ports: readonly number[]): string {
  return (
    `listening on ${host}, which is not loopback: anyone who can reach port${ports.length > 1 ? 's' : ''} ${ports.join(' and ')} can read, change and delete all data, ` +
    'because authentication is off (serve --auth on turns it on). Use --host localhost unless that is what you want.'
  );
}
