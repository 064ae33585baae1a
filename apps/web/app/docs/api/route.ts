import { apiReferencePage } from "@shelf/api/host/pages";

/** The account API's reference, over the live OpenAPI document (`/api/openapi.json`). */
export function GET(request: Request): Response {
  return apiReferencePage(request, { title: "API reference · Shelf" });
}
