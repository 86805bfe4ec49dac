import * as grpc from '@grpc/grpc-js';
import type * as Protobuf from 'protobufjs';
import { type AnyMethod, SERVICES, type ServiceKey, bigtableRoot, serviceDefinition } from '../../src/server/protos.js';
import { DELIBERATE, sendRaw } from '../../src/server/testing/raw-send.js';
import { Random } from '../../src/testing/random.js';
import { MessageGenerator, damage } from './message-generator.js';

/**
 * Protocol fuzzing of every method of the four services a tabletop server
 * speaks: each request is generated from the method's request type
 * (message-generator.ts), encoded with the method's own serializer and, one
 * time in five, damaged; it is sent as raw bytes with a deadline, and the
 * server must answer it with a deliberate status (raw-send.ts DELIBERATE),
 * never INTERNAL or UNKNOWN, and within the deadline. Request `i` of a run
 * with seed `s` is generated from its own random stream (s, i), so any
 * failure can be replayed alone (`replay`).
 */

export interface FuzzMethod {
  readonly service: ServiceKey;
  readonly name: string;
  readonly definition: AnyMethod;
  readonly requestType: Protobuf.Type;
}

/** Every method of the services, with its request type. */
export function fuzzMethods(): FuzzMethod[] {
  const root = bigtableRoot();
  const out: FuzzMethod[] = [];
  for (const service of Object.keys(SERVICES) as ServiceKey[]) {
    const definitions = serviceDefinition(service);
    const reflected = root.lookupService(SERVICES[service]);
    for (const [name, definition] of Object.entries(definitions)) {
      const method = reflected.methods[name];
      if (method === undefined) throw new Error(`${SERVICES[service]}.${name}: not in the descriptor`);
      method.resolve();
      const requestType = method.resolvedRequestType;
      if (requestType === null) throw new Error(`${name}: no request type`);
      out.push({ service, name, definition, requestType });
    }
  }
  return out;
}

export interface FuzzFailure {
  readonly index: number;
  readonly method: string;
  readonly code: string;
  readonly details: string;
  readonly millis: number;
  /** The request's first bytes, hex. */
  readonly bytes: string;
}

export interface FuzzReport {
  readonly seed: number;
  requests: number;
  readonly byMethod: Record<string, number>;
  readonly byCode: Record<string, number>;
  readonly failures: FuzzFailure[];
  damaged: number;
  bytesSent: number;
  slowestMillis: number;
  slowestMethod: string;
}

export interface FuzzOptions {
  readonly address: string;
  readonly requests: number;
  readonly seed: number;
  readonly concurrency?: number;
  readonly deadlineMillis?: number;
  /** Called about every `progressEvery` requests. */
  readonly progress?: (report: FuzzReport) => void;
  readonly progressEvery?: number;
  /** Called every `setupEvery` requests (and first), to put back the resources the fuzzed requests name. */
  readonly setup?: () => Promise<void>;
  readonly setupEvery?: number;
}

/** Request `index` of a run with `seed`: its method and bytes, and whether they were damaged. */
export function request(
  methods: readonly FuzzMethod[],
  seed: number,
  index: number,
): { method: FuzzMethod; bytes: Buffer; damaged: boolean } {
  const random = new Random((Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) + Math.imul(index, 0xc2b2ae35)) >>> 0);
  const method = random.pick(methods);
  const generator = new MessageGenerator(random);
  let bytes: Buffer;
  try {
    bytes = method.definition.requestSerialize(generator.message(method.requestType));
  } catch {
    // A value the serializer refuses (protobufjs checks some): random bytes instead.
    bytes = Buffer.from(Array.from({ length: random.int(0, 64) }, () => random.below(256)));
  }
  const damaged = random.chance(0.2);
  return { method, bytes: damaged ? damage(random, bytes) : bytes, damaged };
}

export async function fuzzProtocol(opts: FuzzOptions): Promise<FuzzReport> {
  const methods = fuzzMethods();
  const client = new grpc.Client(opts.address, grpc.credentials.createInsecure(), {
    'grpc.max_send_message_length': -1,
    'grpc.max_receive_message_length': -1,
    // Node's HTTP/2 client refuses new streams past 10 MB of session memory; requests here are up to a few MiB.
    'grpc-node.max_session_memory': 1024,
  });
  const report: FuzzReport = {
    seed: opts.seed,
    requests: 0,
    byMethod: {},
    byCode: {},
    failures: [],
    damaged: 0,
    bytesSent: 0,
    slowestMillis: 0,
    slowestMethod: '',
  };
  const deadlineMillis = opts.deadlineMillis ?? 15_000;
  const progressEvery = opts.progressEvery ?? 10_000;
  const setupEvery = opts.setupEvery ?? 5_000;
  let next = 0;
  let setupDone = 0;
  let setupRunning: Promise<void> | undefined;
  try {
    await opts.setup?.();
    const worker = async (): Promise<void> => {
      for (;;) {
        const index = next++;
        if (index >= opts.requests) return;
        if (opts.setup !== undefined && index - setupDone >= setupEvery) {
          setupDone = index;
          setupRunning = opts.setup();
        }
        if (setupRunning !== undefined) await setupRunning;
        const { method, bytes, damaged } = request(methods, opts.seed, index);
        const label = `${method.service}.${method.name}`;
        const started = performance.now();
        const outcome = await sendRaw(client, method.definition, bytes, { deadlineMillis, maxMessages: 50 });
        const millis = performance.now() - started;
        report.requests++;
        report.bytesSent += bytes.length;
        if (damaged) report.damaged++;
        report.byMethod[label] = (report.byMethod[label] ?? 0) + 1;
        const code = grpc.status[outcome.code] ?? String(outcome.code);
        report.byCode[code] = (report.byCode[code] ?? 0) + 1;
        if (millis > report.slowestMillis) {
          report.slowestMillis = millis;
          report.slowestMethod = label;
        }
        const ours = outcome.cancelledByUs && outcome.code === grpc.status.CANCELLED;
        if (!ours && !DELIBERATE.has(outcome.code)) {
          report.failures.push({
            index,
            method: label,
            code,
            details: outcome.details.slice(0, 300),
            millis: Math.round(millis),
            bytes: bytes.subarray(0, 96).toString('hex'),
          });
        }
        if (report.requests % progressEvery === 0) opts.progress?.(report);
      }
    };
    await Promise.all(Array.from({ length: opts.concurrency ?? 16 }, () => worker()));
  } finally {
    client.close();
  }
  return report;
}
