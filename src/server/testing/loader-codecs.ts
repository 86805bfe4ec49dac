import type { AnyMethod } from '../protos.js';
import { packageDefinition } from './loader-protos.js';

/**
 * The loader's own (protobufjs) codecs of a method, untouched by tabletop's
 * hand-written codecs: the reference the codec tests compare against.
 */
export function loaderMethod(service: string, method: string): AnyMethod {
  const def = packageDefinition()[service] as unknown as Record<string, AnyMethod> | undefined;
  const m = def?.[method];
  if (m === undefined) throw new Error(`no method ${service}.${method}`);
  return m;
}

export const DATA = 'google.bigtable.v2.Bigtable';
