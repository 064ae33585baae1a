import { toResponse } from "@shelf/api/rest";
import { getRestHandler } from "../../../src/rest";

export const dynamic = "force-dynamic";

/** Every /api path not served by a dedicated route: the REST API, or its JSON 404. */
async function handle(request: Request): Promise<Response> {
  // Next does not expose the peer address; the custom server (server.ts), which serves /api itself, does.
  return toResponse(await getRestHandler()(request));
}

export {
  handle as DELETE,
  handle as GET,
  handle as HEAD,
  handle as OPTIONS,
  handle as PATCH,
  handle as POST,
  handle as PUT,
};
