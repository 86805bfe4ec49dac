import { describe, expect, it } from 'vitest';
import { rawClients, unaryCall, unaryError } from './server/testing/raw-client.js';
import { open, startServer } from './index.js';

describe('startServer', () => {
  it('starts in-process on a free loopback port, without HTTP by default, and stops idempotently', async () => {
    const server = await startServer();
    try {
      expect(server.host).toBe('localhost');
      expect(server.address).toBe(`localhost:${server.port}`);
      expect(server.port).toBeGreaterThan(0);
      expect(server.httpPort).toBeUndefined();
      expect(server.storage).toBe('memory');
      const clients = rawClients(server.address);
      await unaryCall(clients.tableAdmin, 'CreateTable', { parent: 'projects/p/instances/i', tableId: 't', table: { columnFamilies: { f: {} } } });
      const tables = await unaryCall(clients.tableAdmin, 'ListTables', { parent: 'projects/p/instances/i' });
      expect(tables.tables.map((t: { name: string }) => t.name)).toEqual(['projects/p/instances/i/tables/t']);
      clients.close();
    } finally {
      await server.stop();
      await server.stop();
    }
  });

  it('starts an HTTP server when asked, and two servers do not share data', async () => {
    const a = await startServer({ httpPort: 0 });
    const b = await startServer();
    try {
      expect(a.httpPort).toBeGreaterThan(0);
      expect(await (await fetch(`http://localhost:${a.httpPort}/healthz`)).text()).toBe('ok\n');
      const ca = rawClients(a.address);
      const cb = rawClients(b.address);
      await unaryCall(ca.tableAdmin, 'CreateTable', { parent: 'projects/p/instances/i', tableId: 'only-a', table: {} });
      // On b, nothing created the instance.
      expect((await unaryError(cb.tableAdmin, 'ListTables', { parent: 'projects/p/instances/i' })).code).toBe(5);
      ca.close();
      cb.close();
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });

  it('rejects a port that is taken', async () => {
    const a = await startServer();
    try {
      await expect(startServer({ port: a.port })).rejects.toThrow(/cannot listen on localhost:\d+/);
    } finally {
      await a.stop();
    }
  });
});

describe('open', () => {
  it('opens an embedded database', async () => {
    const db = await open();
    const info = await db.createTable({ project: 'p', instance: 'i', table: 't' }, { families: [], initialSplits: [], deletionProtection: false });
    expect(info.name.table).toBe('t');
    await db.close();
  });
});
