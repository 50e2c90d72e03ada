import { closeSync, openSync, readSync, writeSync } from 'node:fs';

/** Bytes gathered before one write: large writes keep a multi-gigabyte spool fast. */
const WRITE_BLOCK_BYTES = 8 * 1024 * 1024;

/**
 * An append-only file of byte records, written in large blocks. `append` answers where the record
 * starts; with its length that is all a `SpoolReader` needs to read it back. Synchronous on
 * purpose: it runs in a thread of its own (the parse thread), where blocking costs no one.
 */
export class SpoolWriter {
  private readonly fd: number;
  private readonly block = Buffer.allocUnsafe(WRITE_BLOCK_BYTES);
  private filled = 0;
  private written = 0;
  private closed = false;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  /** Bytes appended so far. */
  get size(): number {
    return this.written + this.filled;
  }

  /** Appends `bytes`; returns the offset they start at. */
  append(bytes: Uint8Array): number {
    const offset = this.size;
    if (bytes.byteLength > this.block.byteLength - this.filled) this.flush();
    if (bytes.byteLength >= this.block.byteLength) {
      writeSync(this.fd, bytes);
      this.written += bytes.byteLength;
    } else {
      this.block.set(bytes, this.filled);
      this.filled += bytes.byteLength;
    }
    return offset;
  }

  /** Writes what is buffered and closes the file; closing it again does nothing. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.flush();
    closeSync(this.fd);
  }

  private flush(): void {
    if (this.filled === 0) return;
    writeSync(this.fd, this.block, 0, this.filled);
    this.written += this.filled;
    this.filled = 0;
  }
}

/** Reads records back from a file written by `SpoolWriter`, by offset and length. */
export class SpoolReader {
  private readonly fd: number;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'r');
  }

  read(offset: number, length: number): Buffer {
    const out = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const n = readSync(this.fd, out, done, length - done, offset + done);
      if (n === 0) throw new Error(`${this.path}: ends before byte ${offset + length}`);
      done += n;
    }
    return out;
  }

  close(): void {
    closeSync(this.fd);
  }
}
