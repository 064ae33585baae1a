import { randomUUID } from "node:crypto";
import { pipeline, Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import { type ByteRange, contentDisposition } from "../plain";
import { type ArtifactStore, Measure, MissingObjectError, newObjectKey, type StoredObject } from "./store";

export type S3StoreOptions = {
  bucket: string;
  /** An S3-compatible server's URL; unset: AWS itself, by region. */
  endpoint?: string;
  region: string;
  /** Static credentials; unset: the SDK's default chain (environment, profile, instance role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** `https://endpoint/bucket/key` instead of `https://bucket.endpoint/key` (most S3-compatible servers). */
  forcePathStyle: boolean;
  /** Prepended to every key, for a bucket shared with other data. */
  prefix: string;
};

/**
 * Objects in an S3-compatible bucket, for deployments with several instances: every instance reads what any one
 * wrote, and clients download straight from presigned object URLs. Uploads are multipart and streamed, measured on
 * the way; a failed upload is aborted and nothing is left behind.
 */
export function createS3Store(options: S3StoreOptions): ArtifactStore & { client: S3Client } {
  const client = new S3Client({
    region: options.region,
    endpoint: options.endpoint,
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    // Checksums only where S3 requires them: the store measures sha256 itself, and S3-compatible servers differ
    // in which of the newer checksum headers they accept.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
  const Bucket = options.bucket;
  const objectKey = (key: string) => `${options.prefix}${key}`;

  return {
    kind: "s3",
    client,

    async put(source, contentType): Promise<StoredObject> {
      const key = newObjectKey(randomUUID());
      const measure = new Measure();
      // pipeline, not pipe: a source that fails must fail the upload, not leave it waiting for the rest.
      const body = pipeline(Readable.from(source), measure, () => {});
      const upload = new Upload({
        client,
        params: { Bucket, Key: objectKey(key), Body: body, ContentType: contentType },
        queueSize: 2,
        partSize: 8 * 1024 * 1024,
      });
      try {
        await upload.done();
      } catch (error) {
        await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(key) })).catch(() => {});
        throw error;
      }
      return { key, size: measure.byteCount, sha256: measure.digest() };
    },

    async open(key, range?: ByteRange) {
      try {
        const answer = await client.send(
          new GetObjectCommand({
            Bucket,
            Key: objectKey(key),
            Range: range ? `bytes=${range.start}-${range.end}` : undefined,
          }),
        );
        return answer.Body as Readable;
      } catch (error) {
        if (error instanceof NoSuchKey) throw new MissingObjectError(key);
        throw error;
      }
    },

    async remove(key) {
      await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(key) }));
    },

    async presign(key, { expiresInSeconds, filename, contentType }) {
      const command = new GetObjectCommand({
        Bucket,
        Key: objectKey(key),
        ResponseContentDisposition: contentDisposition(filename),
        ResponseContentType: contentType,
      });
      return getSignedUrl(client, command, { expiresIn: expiresInSeconds });
    },

    async check() {
      // A small marker object: read on every check, written when missing, so the check proves the bucket answers
      // and lets this instance read and write (with HEAD and PUT alone, which every S3-compatible server supports).
      const marker = { Bucket, Key: objectKey(".shelf-store-check") };
      const signal = { abortSignal: AbortSignal.timeout(3000) };
      try {
        await client.send(new HeadObjectCommand(marker), signal);
        return true;
      } catch (error) {
        if (!(error instanceof NotFound)) return false;
      }
      try {
        await client.send(new PutObjectCommand({ ...marker, Body: "shelf", ContentType: "text/plain" }), signal);
        return true;
      } catch {
        return false;
      }
    },
  };
}
