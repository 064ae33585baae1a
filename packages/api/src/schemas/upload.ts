import { UploadedFile } from "@shelf/server/edge/uploaded-file";
import { z } from "zod";

export { UploadedFile };

/** A file field of a procedure's input: documented as binary in the multipart form. */
export const UploadedFileSchema = z
  .instanceof(UploadedFile, { message: "must be a file sent as multipart/form-data" })
  .meta({ override: { type: "string", format: "binary" } });
