import type { UntypedServiceImplementation } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../../testing/memory-logger.js';
import { Metrics } from '../metrics.js';
import type { AnyMethod } from '../protos.js';
import { type RpcEnv, serverStream, unary, unimplementedHandler } from '../rpc.js';
import { RouteTable } from './routes.js';

const env: RpcEnv = { service: 'x.S', metrics: new Metrics(), logger: memoryLogger() };
const id = (b: Buffer): Buffer => b;
const method = (name: string, requestStream: boolean, responseStream: boolean): AnyMethod => ({
  path: `/x.S/${name}`,
  requestStream,
  responseStream,
  requestSerialize: id,
  requestDeserialize: id,
  responseSerialize: id,
  responseDeserialize: id,
  originalName: name,
});

describe('RouteTable', () => {
  it('routes /package.Service/Method to the method and its transport-neutral handler', () => {
    const methods = { A: method('A', false, false), B: method('B', false, true), C: method('C', true, true) };
    const impl: UntypedServiceImplementation = {
      A: unary(env, 'A', (r: Buffer) => r),
      B: serverStream(env, 'B', () => {}),
      C: unimplementedHandler(env, 'C', methods.C, 'no'),
    };
    const routes = new RouteTable();
    routes.addService('x.S', methods, impl);
    expect(routes.get('/x.S/A')).toMatchObject({ name: 'S/A', method: methods.A, handler: { kind: 'unary' } });
    expect(routes.get('/x.S/B')?.handler.kind).toBe('serverStream');
    expect(routes.get('/x.S/C')?.handler.kind).toBe('reject');
    expect(routes.get('/x.S/D')).toBeUndefined();
    expect(routes.unknownPathMessage('/x.S/D')).toBe('Unknown method D for service x.S');
    expect(routes.unknownPathMessage('/y.T/A')).toBe('Unknown service y.T');
    expect(routes.unknownPathMessage('x.S/A')).toBe('Malformed method path "x.S/A": expected /package.Service/Method');
  });

  it('refuses handlers it cannot run: missing, not built by rpc.ts, or of the wrong shape', () => {
    const add = (methods: Record<string, AnyMethod>, impl: UntypedServiceImplementation) => () => new RouteTable().addService('x.S', methods, impl);
    expect(add({ A: method('A', false, false) }, {})).toThrow(/x\.S\.A has no handler built by rpc\.ts/);
    expect(add({ A: method('A', false, false) }, { A: (_call: unknown, cb: (e: null, r: Buffer) => void) => cb(null, Buffer.alloc(0)) })).toThrow(/no handler built by rpc\.ts/);
    expect(add({ A: method('A', false, true) }, { A: unary(env, 'A', (r: Buffer) => r) })).toThrow(/streams responses but has a unary handler/);
    expect(add({ A: method('A', false, false) }, { A: serverStream(env, 'A', () => {}) })).toThrow(/is unary but has a streaming handler/);
    expect(add({ A: method('A', true, false) }, { A: unary(env, 'A', (r: Buffer) => r) })).toThrow(/streams requests/);
  });
});
