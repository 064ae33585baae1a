import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { Transform, type TransformCallback } from "node:stream";
import type { ByteRange } from "../plain";

/** Bytes to store: a stream, or chunks at hand. */
export type ByteSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

/** An object the store holds: its key, and the size and sha256 the store measured while it was written. */
export type StoredObject = { key: string; size: number; sha256: string };

export type PresignOptions = {
  expiresInSeconds: number;
  /** Offered as the download's name (`Content-Disposition: attachment`). */
  filename: string;
  contentType: string;
};

/**
 * Where artifact bytes live: release artifacts and content assets. Objects are written once under a key the store
 * chooses and never changed; replacing a file writes a new object and removes the old one.
 */
export interface ArtifactStore {
  readonly kind: "filesystem" | "s3";
  /**
   * Streams `source` into a new object, measuring its size and sha256 on the way (never trusted from the caller).
   * A failed write leaves no object behind.
   */
  put(source: ByteSource, contentType: string): Promise<StoredObject>;
  /** The object's bytes, or one range of them, streamed. */
  open(key: string, range?: ByteRange): Promise<Readable>;
  /** Removes an object; removing one that is not there is not an error. */
  remove(key: string): Promise<void>;
  /**
   * A short-lived URL straight to the object, for stores clients can download from themselves (S3); null when
   * downloads go through the service's own signed route.
   */
  presign(key: string, options: PresignOptions): Promise<string | null>;
  /** Whether the store can be written and read right now (the folder is writable; the bucket answers). */
  check(): Promise<boolean>;
}

/** Counts and hashes what flows through, unchanged. */
export class Measure extends Transform {
  // Not `size`: upload libraries read a stream's `size` as its declared length.
  byteCount = 0;
  private readonly hash = createHash("sha256");

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
    this.byteCount += chunk.length;
    this.hash.update(chunk);
    done(null, chunk);
  }

  digest(): string {
    return this.hash.digest("hex");
  }
}

/** A new object's key: unique, so concurrent writers never meet, and spread over 256 folders. */
export function newObjectKey(id: string): string {
  return `artifacts/${id.slice(0, 2)}/${id}`;
}

export class MissingObjectError extends Error {
  constructor(key: string) {
    super(`The artifact store has no object ${key}.`);
    this.name = "MissingObjectError";
  }
}
