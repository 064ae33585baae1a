import type { FileOutput } from "@shelf/server/plain";
import type { ArtifactStore } from "@shelf/server/storage/store";
import mime from "mime-types";

/** The media type a file is served with, from its name; unknown kinds are plain bytes. */
export function contentTypeOf(filename: string): string {
  return mime.contentType(filename.split("/").pop() ?? filename) || "application/octet-stream";
}

/** A stored object as a plain route's file answer: streamed from the store, validated by its sha256. */
export function storedFile(
  store: ArtifactStore,
  object: {
    key: string;
    sha256: string;
    size: number;
    contentType: string;
    filename: string | null;
    lastModified: Date | null;
  },
  cacheControl: string,
): FileOutput {
  return {
    kind: "file",
    contentType: object.contentType,
    size: object.size,
    etag: object.sha256,
    lastModified: object.lastModified,
    filename: object.filename,
    cacheControl,
    open: (range) => store.open(object.key, range),
  };
}
