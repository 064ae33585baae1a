/**
 * A file sent in a `multipart/form-data` body, read whole (within the route's limit for the field) before the
 * procedure runs. Pure data, so schemas can name it.
 */
export class UploadedFile {
  readonly filename: string | null;
  readonly contentType: string;
  readonly bytes: Buffer;

  constructor(filename: string | null, contentType: string, bytes: Buffer) {
    this.filename = filename;
    this.contentType = contentType;
    this.bytes = bytes;
  }

  get size(): number {
    return this.bytes.byteLength;
  }
}
