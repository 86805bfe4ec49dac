import { describe, expect, it } from 'vitest';
import { memoryLogger } from '../testing/memory-logger.js';
import {
  type MethodInfo,
  MethodTable,
  type ProtoMethod,
  type ServiceSpec,
  type TableEnv,
  resource,
  resourceOfName,
  serverStream,
  serviceMethods,
  unary,
} from './method-table.js';
import { MalformedRequest, type UnaryCall } from './rpc.js';
import { Status } from './status-codes.js';

/** Protos of a test service x.S whose messages are strings (UTF-8), and whose decoder throws on "!". */
function proto(name: string, requestStream: boolean, responseStream: boolean): ProtoMethod {
  return {
    path: `/x.S/${name}`,
    requestStream,
    responseStream,
    requestDeserialize: (b) => {
      if (b.toString() === '!') throw new Error('not a message');
      return { text: b.toString() };
    },
    responseSerialize: (v) => Buffer.from(JSON.stringify(v)),
  };
}

const PROTOS = {
  Get: proto('Get', false, false),
  List: proto('List', false, true),
  Upload: proto('Upload', true, false),
  Chat: proto('Chat', true, true),
  Other: proto('Other', false, false),
};

interface Req {
  readonly text: string;
}
const byText = (req: Req) => resource('table', req.text);

function env(): TableEnv & { observed: MethodInfo[]; calls: [string, unknown][] } {
  const observed: MethodInfo[] = [];
  const calls: [string, unknown][] = [];
  return {
    observed,
    calls,
    logger: memoryLogger(),
    observe: (m) => {
      observed.push(m);
      return (request) => {
        calls.push([m.name, request]);
        return () => {};
      };
    },
  };
}

const SPEC: ServiceSpec = {
  service: 'x.S',
  methods: {
    Get: unary<Req, object>({ resource: byText }, (req) => ({ got: req.text })),
    List: serverStream<Req, string>(
      {
        decode: (b) => ({ text: `own ${b.toString()}` }),
        decodeParts: (parts) => ({ text: parts.join('+') }),
        encode: (s) => Buffer.from(s),
        resource: byText,
      },
      () => {},
    ),
  },
  notYet: { uploads: ['Upload'], chat: ['Chat'] },
};

/** Runs a unary method on decoded bytes, as a transport does; resolves with the encoded response or the status. */
function call(m: ReturnType<typeof serviceMethods>[number], bytes: Buffer): Promise<Buffer | { code: number; details: string }> {
  return new Promise((resolve) => {
    const c: UnaryCall<unknown, unknown> = {
      request: m.decode(bytes),
      metadata: { get: () => [] },
      cancelled: false,
      respond: (r) => resolve(m.encode(r)),
      fail: (code, details) => resolve({ code, details }),
    };
    if (m.handler.kind === 'unary') m.handler.run(c);
  });
}

describe('serviceMethods', () => {
  it("describes every method of the protos once: the service's, and the rest UNIMPLEMENTED", () => {
    const e = env();
    const methods = serviceMethods(SPEC, PROTOS, e);
    expect(methods.map((m) => [m.path, m.label, m.shape, m.handler.kind])).toEqual([
      ['/x.S/Get', 'S/Get', 'unary', 'unary'],
      ['/x.S/List', 'S/List', 'serverStream', 'serverStream'],
      ['/x.S/Upload', 'S/Upload', 'clientStream', 'reject'],
      ['/x.S/Chat', 'S/Chat', 'bidi', 'reject'],
      ['/x.S/Other', 'S/Other', 'unary', 'reject'],
    ]);
    // The observer is given each method once, as the table is built.
    expect(e.observed.map((m) => m.name)).toEqual(['Get', 'List', 'Upload', 'Chat', 'Other']);
    expect(methods.every((m) => Object.isFrozen(m))).toBe(true);
  });

  it("answers methods it does not implement UNIMPLEMENTED, naming their feature (else 'this RPC'), without a request", () => {
    const e = env();
    const methods = serviceMethods(SPEC, PROTOS, e);
    const answers = methods
      .filter((m) => m.handler.kind === 'reject')
      .map((m) => {
        let status: [number, string] | undefined;
        if (m.handler.kind === 'reject')
          m.handler.run({ metadata: { get: () => [] }, cancelled: false, fail: (code, details) => (status = [code, details]) });
        return status;
      });
    expect(answers).toEqual([
      [Status.UNIMPLEMENTED, 'Upload (uploads) is not implemented by tabletop yet'],
      [Status.UNIMPLEMENTED, 'Chat (chat) is not implemented by tabletop yet'],
      [Status.UNIMPLEMENTED, 'Other (this RPC) is not implemented by tabletop yet'],
    ]);
    expect(e.calls).toEqual([
      ['Upload', undefined],
      ['Chat', undefined],
      ['Other', undefined],
    ]);
  });

  it("uses the spec's codecs where it has them, else the protos' (an empty response as no bytes), and reports undecodable requests", async () => {
    const e = env();
    const [get, list] = serviceMethods(SPEC, PROTOS, e);
    expect(list!.decode(Buffer.from('a'))).toEqual({ text: 'own a' });
    expect(list!.decodeParts!([Buffer.from('a'), Buffer.from('b')])).toEqual({ text: 'a+b' });
    expect(list!.encode('out')).toEqual(Buffer.from('out'));
    expect(get!.decodeParts).toBeUndefined();
    expect(get!.decode(Buffer.from('a'))).toEqual({ text: 'a' });
    expect(get!.decode(Buffer.from('!'))).toEqual(new MalformedRequest('Malformed Get request: not a message'));
    expect(get!.encode({ got: 'a' })).toEqual(Buffer.from('{"got":"a"}'));
    expect(get!.encode({})).toEqual(Buffer.alloc(0));
    expect(await call(get!, Buffer.from('k'))).toEqual(Buffer.from('{"got":"k"}'));
    expect(await call(get!, Buffer.from('!'))).toEqual({ code: Status.INVALID_ARGUMENT, details: 'Malformed Get request: not a message' });
    // Each call passed through the method's observer with its decoded request.
    expect(e.calls).toEqual([
      ['Get', { text: 'k' }],
      ['Get', new MalformedRequest('Malformed Get request: not a message')],
    ]);
  });

  it('gives the resource of a decoded request, and none for one that did not decode or a method not implemented', () => {
    const methods = serviceMethods(SPEC, PROTOS, env());
    const [get, , upload] = methods;
    expect(get!.resource(get!.decode(Buffer.from('projects/p/instances/i/tables/t')))).toEqual({
      kind: 'table',
      name: 'projects/p/instances/i/tables/t',
    });
    expect(get!.resource({ text: '' })).toBeUndefined();
    expect(get!.resource(get!.decode(Buffer.from('!')))).toBeUndefined();
    expect(get!.resource(undefined)).toBeUndefined();
    expect(upload!.resource({ text: 'projects/p' })).toBeUndefined();
  });

  it('refuses a spec that does not match the protos', () => {
    const build =
      (spec: Partial<ServiceSpec>, protos: Record<string, ProtoMethod> = PROTOS) =>
      () =>
        serviceMethods({ service: 'x.S', methods: {}, ...spec }, protos, env());
    const get = unary<Req, object>({ resource: byText }, () => ({}));
    const list = serverStream<Req, string>({ resource: byText }, () => {});
    expect(build({ methods: { Nope: get } })).toThrow('x.S.Nope has a handler, but the protos define no such method');
    expect(build({ methods: { List: get } })).toThrow('x.S.List is serverStream in the protos, but its handler is unary');
    expect(build({ methods: { Get: list } })).toThrow('x.S.Get is unary in the protos, but its handler is serverStream');
    expect(build({ methods: { Upload: get } })).toThrow('x.S.Upload is clientStream in the protos, but its handler is unary');
    expect(build({ methods: { Chat: list } })).toThrow('x.S.Chat is bidi in the protos, but its handler is serverStream');
    expect(build({ notYet: { later: ['Nope'] } })).toThrow('x.S.Nope is listed as not implemented, but the protos define no such method');
    expect(build({ methods: { Get: get }, notYet: { later: ['Get'] } })).toThrow('x.S.Get is listed twice');
    expect(build({ notYet: { a: ['Get'], b: ['Get'] } })).toThrow('x.S.Get is listed twice');
    expect(build({}, { Get: { ...PROTOS.Get, path: '/y.S/Get' } })).toThrow('x.S.Get: the protos give the path /y.S/Get');
  });
});

describe('MethodTable', () => {
  it('finds methods by path, and says why a path has none', () => {
    const methods = serviceMethods(SPEC, PROTOS, env());
    const table = new MethodTable(methods);
    expect(table.get('/x.S/Get')).toBe(methods[0]);
    expect(table.methods).toEqual(methods);
    expect(table.get('/x.S/D')).toBeUndefined();
    expect(table.unknownPathMessage('/x.S/D')).toBe('Unknown method D for service x.S');
    expect(table.unknownPathMessage('/y.T/A')).toBe('Unknown service y.T');
    expect(table.unknownPathMessage('x.S/A')).toBe('Malformed method path "x.S/A": expected /package.Service/Method');
  });

  it('refuses a path twice', () => {
    const methods = serviceMethods(SPEC, PROTOS, env());
    expect(() => new MethodTable([...methods, methods[1]!])).toThrow('/x.S/List is in the method table twice');
  });
});

describe('resourceOfName', () => {
  it('knows a resource by its last collection', () => {
    const i = 'projects/p/instances/i';
    expect(
      [
        'projects/p',
        i,
        `${i}/clusters/c`,
        `${i}/appProfiles/a`,
        `${i}/tables/t`,
        `${i}/tables/t/authorizedViews/v`,
        `${i}/logicalViews/l`,
        `${i}/materializedViews/m`,
        `${i}/clusters/c/backups/b`,
        `${i}/tables/t/operations/o`,
      ].map((n) => resourceOfName(n)?.kind),
    ).toEqual([
      'project',
      'instance',
      'cluster',
      'appProfile',
      'table',
      'authorizedView',
      'logicalView',
      'materializedView',
      'backup',
      'operation',
    ]);
    expect(resourceOfName(`${i}/tables/t`)).toEqual({ kind: 'table', name: `${i}/tables/t` });
    for (const n of ['', undefined, null, 'projects', `${i}/tables`, `${i}/widgets/w`, 'not a name'])
      expect(resourceOfName(n)).toBeUndefined();
  });
});
