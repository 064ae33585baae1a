import { apiReferencePage } from "@shelf/api/host/pages";

/** The design agent API's reference, over the design host's live OpenAPI document (`/api/openapi.json`). */
export function GET(request: Request): Response {
  return apiReferencePage(request, { title: "Design API reference · Shelf" });
}
