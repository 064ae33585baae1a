import { apiReferenceScript } from "@shelf/api/host/pages";

/** Scalar's standalone bundle for the API reference, from this app's node_modules. */
export function GET(request: Request): Promise<Response> {
  return apiReferenceScript(request);
}
