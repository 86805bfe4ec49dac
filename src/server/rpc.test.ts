import { describe, expect, it } from 'vitest';
import { TabletopError, invalidArgument, notFound } from '../model/errors.js';
import { memoryLogger } from '../testing/memory-logger.js';
import {
  type CallStart,
  MalformedRequest,
  type ServerStreamCall,
  type UnaryCall,
  rejectRunner,
  safeDecoder,
  serverStreamRunner,
  unaryRunner,
} from './rpc.js';
import { Status } from './status-codes.js';

type Outcome = { ok: unknown } | { code: number; details: string };

/** A CallStart that records the requests it saw and the codes the calls ended with. */
function recorder(): { begin: CallStart; requests: unknown[]; codes: string[] } {
  const requests: unknown[] = [];
  const codes: string[] = [];
  return {
    requests,
    codes,
    begin: (request) => {
      requests.push(request);
      return (code) => codes.push(code);
    },
  };
}

/** Runs a unary runner on an in-memory call; resolves with how the call ended. */
function runUnary(handler: ReturnType<typeof unaryRunner>, request: unknown, cancelled = false): Promise<Outcome> {
  if (handler.kind !== 'unary') throw new Error('not a unary runner');
  return new Promise((resolve) => {
    const call: UnaryCall<unknown, unknown> = {
      request,
      metadata: { get: () => [] },
      cancelled,
      respond: (ok) => resolve({ ok }),
      fail: (code, details) => resolve({ code, details }),
    };
    handler.run(call);
  });
}

/** Runs a server-streaming runner on an in-memory call whose buffer holds `room` messages before it reports backpressure. */
function runStream(
  handler: ReturnType<typeof serverStreamRunner>,
  request: unknown,
  room = Infinity,
): Promise<{ messages: unknown[]; end: Outcome | 'OK'; drains: number }> {
  if (handler.kind !== 'serverStream') throw new Error('not a streaming runner');
  return new Promise((resolve) => {
    const messages: unknown[] = [];
    let drains = 0;
    const call: ServerStreamCall<unknown, unknown> = {
      request,
      metadata: { get: () => [] },
      cancelled: false,
      ended: false,
      write: (m) => {
        messages.push(m);
        return messages.length < room;
      },
      drained: () => {
        drains++;
        room += 2;
        return Promise.resolve(true);
      },
      end: () => resolve({ messages, end: 'OK', drains }),
      fail: (code, details) => resolve({ messages, end: { code, details }, drains }),
    };
    handler.run(call);
  });
}

describe('unaryRunner', () => {
  it('responds with what the handler returns, sync or async, and tells the observer the request and OK', async () => {
    const r = recorder();
    expect(
      await runUnary(
        unaryRunner('M', (req: string) => `${req}!`, r.begin, memoryLogger()),
        'a',
      ),
    ).toEqual({ ok: 'a!' });
    expect(
      await runUnary(
        unaryRunner('M', async (req: string) => `${req}?`, r.begin, memoryLogger()),
        'b',
      ),
    ).toEqual({ ok: 'b?' });
    expect(r.requests).toEqual(['a', 'b']);
    expect(r.codes).toEqual(['OK', 'OK']);
  });

  it('reports failures as their status, and a request that did not decode as INVALID_ARGUMENT without running the handler', async () => {
    const r = recorder();
    let ran = 0;
    const handler = unaryRunner(
      'M',
      (req: string) => {
        ran++;
        if (req === 'sync') throw notFound('no such thing');
        return Promise.reject(invalidArgument('bad'));
      },
      r.begin,
      memoryLogger(),
    );
    expect(await runUnary(handler, 'sync')).toEqual({ code: Status.NOT_FOUND, details: 'no such thing' });
    expect(await runUnary(handler, 'async')).toEqual({ code: Status.INVALID_ARGUMENT, details: 'bad' });
    expect(await runUnary(handler, new MalformedRequest('Malformed M request: cut short'))).toEqual({
      code: Status.INVALID_ARGUMENT,
      details: 'Malformed M request: cut short',
    });
    expect(ran).toBe(2);
    expect(r.codes).toEqual(['NOT_FOUND', 'INVALID_ARGUMENT', 'INVALID_ARGUMENT']);
  });

  it('reports a bug as INTERNAL and logs it; a cancelled call ends CANCELLED', async () => {
    const logger = memoryLogger();
    const r = recorder();
    const handler = unaryRunner(
      'M',
      () => {
        throw new Error('oops');
      },
      r.begin,
      logger,
    );
    expect(await runUnary(handler, 'x')).toEqual({ code: Status.INTERNAL, details: 'Internal error in M: oops' });
    expect(logger.lines[0]).toMatch(/^error: internal error in M: Error: oops/);
    await runUnary(
      unaryRunner('M', () => 'late', r.begin, logger),
      'x',
      true,
    );
    expect(r.codes).toEqual(['INTERNAL', 'CANCELLED']);
  });
});

describe('serverStreamRunner', () => {
  it('writes the messages, waits for the call to drain when it is full, then ends OK', async () => {
    const r = recorder();
    const handler = serverStreamRunner(
      'S',
      async (n: number, out) => {
        for (let i = 0; i < n; i++) {
          const w = out.write(i);
          if (!(w instanceof Promise ? await w : w)) return;
        }
      },
      r.begin,
      memoryLogger(),
    );
    expect(await runStream(handler, 5, 2)).toEqual({ messages: [0, 1, 2, 3, 4], end: 'OK', drains: 2 });
    expect(r.codes).toEqual(['OK']);
  });

  it('ends with the status of a failure after the messages already written', async () => {
    const r = recorder();
    const handler = serverStreamRunner(
      'S',
      (_req: unknown, out) => {
        out.write('one');
        throw invalidArgument('stopped');
      },
      r.begin,
      memoryLogger(),
    );
    expect(await runStream(handler, {})).toEqual({
      messages: ['one'],
      end: { code: Status.INVALID_ARGUMENT, details: 'stopped' },
      drains: 0,
    });
    expect(r.codes).toEqual(['INVALID_ARGUMENT']);
  });
});

describe('rejectRunner', () => {
  it('answers UNIMPLEMENTED with its message, without a request, and counts the call', async () => {
    const r = recorder();
    const handler = rejectRunner('OpenTable', 'OpenTable (the session API) is not implemented by tabletop yet', r.begin, memoryLogger());
    expect(handler.kind).toBe('reject');
    const outcome = await new Promise<Outcome>((resolve) => {
      if (handler.kind === 'reject')
        handler.run({ metadata: { get: () => [] }, cancelled: false, fail: (code, details) => resolve({ code, details }) });
    });
    expect(outcome).toEqual({ code: Status.UNIMPLEMENTED, details: 'OpenTable (the session API) is not implemented by tabletop yet' });
    expect(r.requests).toEqual([undefined]);
    expect(r.codes).toEqual(['UNIMPLEMENTED']);
  });
});

describe('a call its observer refuses', () => {
  const refuse: CallStart = (request) => {
    throw new TabletopError('PermissionDenied', `no access to ${String((request as { table?: string } | undefined)?.table)}`);
  };

  it('ends with the refusal as its status, and its handler does not run, whatever the shape', async () => {
    let ran = 0;
    const logger = memoryLogger();
    const unary = unaryRunner('M', () => ran++, refuse, logger);
    expect(await runUnary(unary, { table: 't' })).toEqual({ code: Status.PERMISSION_DENIED, details: 'no access to t' });
    const stream = serverStreamRunner('S', () => void ran++, refuse, logger);
    expect(await runStream(stream, { table: 'u' })).toEqual({
      messages: [],
      end: { code: Status.PERMISSION_DENIED, details: 'no access to u' },
      drains: 0,
    });
    const reject = rejectRunner('R', 'R (this RPC) is not implemented by tabletop yet', refuse, logger);
    const outcome = await new Promise<Outcome>((resolve) => {
      if (reject.kind === 'reject')
        reject.run({ metadata: { get: () => [] }, cancelled: false, fail: (code, details) => resolve({ code, details }) });
    });
    expect(outcome).toEqual({ code: Status.PERMISSION_DENIED, details: 'no access to undefined' });
    expect(ran).toBe(0);
    expect(logger.lines).toEqual([]);
  });
});

describe('safeDecoder', () => {
  it('returns what the decoder returns, and a MalformedRequest naming the method for what it throws', () => {
    const decode = safeDecoder('MutateRow', (b: Buffer) => {
      if (b.length === 0) throw new Error('index out of range');
      return b.toString();
    });
    expect(decode(Buffer.from('x'))).toBe('x');
    expect(decode(Buffer.alloc(0))).toEqual(new MalformedRequest('Malformed MutateRow request: index out of range'));
  });
});
