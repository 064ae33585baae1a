import { type ClientJson, JSON_TYPE, parseClientJson, TOO_DEEP } from "../json-text";
import { formValues, type JsonSchema } from "./input";
import { readMultipart } from "./multipart";
import type { ProtocolBody } from "./protocol";
import { type EdgeRequest, FORM_TYPE, MULTIPART_TYPE, parseForm, readBody, utf8 } from "./request";
import { errorResult, jsonResult, validationBody } from "./results";
import type { EdgeRoute } from "./routes";

export const BODY_METHODS = new Set(["POST", "PUT", "PATCH"]);

/**
 * A route's body as its procedure's input: a multipart form's fields and files, a URL-encoded form's fields (typed
 * from the document's schema of the body, `properties`), or JSON; none for methods without one, or an empty body.
 * Each refusal in the contract's shape: 413 over `maxBodyBytes`, 415 for a type the route does not take, 422 for a
 * form or JSON that does not parse (or nests too deep), 400 for a body cut short.
 */
export async function readRouteBody(
  route: EdgeRoute,
  request: EdgeRequest,
  maxBodyBytes: number,
  properties: Record<string, JsonSchema>,
): Promise<ProtocolBody> {
  const contentType = request.header("content-type") ?? "";
  if (route.meta.multipart && MULTIPART_TYPE.test(contentType)) {
    const form = await readMultipart(request, route.meta.multipart);
    if (!form.ok) {
      if (form.reason === "invalid") return { ok: false, result: jsonResult(422, validationBody(form.errors)) };
      if (form.reason === "too_large") return { ok: false, result: errorResult("payload_too_large") };
      return { ok: false, result: errorResult("malformed_request", "The multipart form is malformed.") };
    }
    return { ok: true, body: { ...formValues(form.fields, properties), ...form.files } };
  }
  if (!BODY_METHODS.has(route.method)) return { ok: true, body: undefined };
  const read = await readBody(request, maxBodyBytes);
  if (!read.ok && read.reason === "aborted") {
    return { ok: false, result: errorResult("malformed_request", "The request body ended before it was complete.") };
  }
  if (!read.ok) return { ok: false, result: errorResult("payload_too_large") };
  if (route.meta.formBody === "only" && !FORM_TYPE.test(contentType)) {
    return {
      ok: false,
      result: errorResult("unsupported_media_type", "Send the body as application/x-www-form-urlencoded."),
    };
  }
  if (route.meta.formBody && FORM_TYPE.test(contentType)) {
    const form = parseForm(read.bytes);
    if (!form.ok) return { ok: false, result: jsonResult(422, validationBody(form.errors)) };
    return { ok: true, body: formValues(form.fields, properties) };
  }
  if (!read.bytes.some((byte) => byte > 0x20)) return { ok: true, body: undefined };
  if (!JSON_TYPE.test(contentType)) {
    return {
      ok: false,
      result: errorResult(
        "unsupported_media_type",
        route.meta.multipart
          ? "Send the body as application/json or multipart/form-data."
          : route.meta.formBody
            ? "Send the body as application/json or application/x-www-form-urlencoded."
            : undefined,
      ),
    };
  }
  let parsed: ClientJson;
  try {
    parsed = parseClientJson(utf8.decode(read.bytes));
  } catch {
    parsed = { ok: false, reason: "malformed" };
  }
  if (!parsed.ok) {
    const problem = parsed.reason === "too_deep" ? TOO_DEEP : "must be valid JSON in UTF-8";
    return { ok: false, result: jsonResult(422, validationBody({ body: [problem] })) };
  }
  return { ok: true, body: parsed.value };
}
