import { status as grpcJsStatus } from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { Status } from './status-codes.js';

describe('Status', () => {
  it("has grpc-js's names and numbers, every one of them", () => {
    const entries = (e: object) => Object.entries(e).filter(([k]) => !/^\d+$/.test(k));
    expect(Object.fromEntries(entries(Status))).toEqual(Object.fromEntries(entries(grpcJsStatus)));
    expect(entries(Status)).toHaveLength(17);
  });

  it('names a number (the reverse map statusName uses)', () => {
    expect(Status[5]).toBe('NOT_FOUND');
    expect(Status[Status.DATA_LOSS]).toBe('DATA_LOSS');
  });
});
