import { closeSync, openSync, readSync, statSync, truncateSync, writeSync } from 'node:fs';

/** Ways to damage a file of a stopped server, as a failing disk or an interrupted write would. */

/** XORs `count` bytes at `offset` with 0xff (so each byte surely changes). */
export function flipBytes(file: string, offset: number, count = 4): void {
  const fd = openSync(file, 'r+');
  try {
    const buf = Buffer.alloc(count);
    const n = readSync(fd, buf, 0, count, offset);
    if (n !== count) throw new Error(`${file} has no ${count} bytes at offset ${offset}`);
    for (let i = 0; i < count; i++) buf.writeUInt8(buf.readUInt8(i) ^ 0xff, i);
    writeSync(fd, buf, 0, count, offset);
  } finally {
    closeSync(fd);
  }
}

/** Cuts `bytes` off the end of a file. */
export function cutTail(file: string, bytes: number): void {
  const size = statSync(file).size;
  if (bytes > size) throw new Error(`${file} has only ${size} bytes, cannot cut ${bytes}`);
  truncateSync(file, size - bytes);
}

/** Appends `bytes` zero bytes (what a file system may show after a crash when the size was updated but not the data). */
export function appendZeros(file: string, bytes: number): void {
  const fd = openSync(file, 'a');
  try {
    writeSync(fd, Buffer.alloc(bytes));
  } finally {
    closeSync(fd);
  }
}

/** Overwrites `count` bytes at `offset` with zeros (a write that never landed in a file already that long). */
export function zeroBytes(file: string, offset: number, count: number): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, Buffer.alloc(count), 0, count, offset);
  } finally {
    closeSync(fd);
  }
}
