import { Readable } from "node:stream";
import { DomainError, domainErrors, ValidationError } from "@shelf/api";
import { currentSession, pageCaller } from "../../../../../../src/auth/session";
import { refusalOf } from "../../../../../../src/forms/errors";

type Params = { params: Promise<{ product: string; path: string[] }> };

/**
 * A product's content asset for the signed-in person (the pages' hero images): the API's content-asset procedure,
 * with its entitlement checks, called as the session. Served inert: no script of an uploaded file runs here.
 */
export async function GET(_request: Request, { params }: Params): Promise<Response> {
  const { product, path } = await params;
  const session = await currentSession();
  if (!session) return refused(new DomainError("not_found"));
  if (!/^[1-9]\d{0,9}$/.test(product)) return refused(new DomainError("not_found", "No such product."));
  try {
    const file = await (await pageCaller(session)).products.contentAsset({
      product: Number(product),
      path: path.join("/"),
    });
    return new Response(Readable.toWeb(await file.open()) as ReadableStream, {
      headers: {
        "content-type": file.contentType,
        "content-length": String(file.size),
        etag: `"${file.etag}"`,
        "cache-control": "private, max-age=300",
        "content-security-policy": "default-src 'none'; sandbox",
        "x-content-type-options": "nosniff",
      },
    });
  } catch (error) {
    const refusal = refusalOf(error);
    if (!refusal) throw error;
    return refused(refusal);
  }
}

function refused(error: DomainError | ValidationError): Response {
  if (error instanceof ValidationError) {
    return Response.json({ message: error.message, errors: error.errors }, { status: 422 });
  }
  return Response.json({ message: error.message, error: error.code }, { status: domainErrors[error.code].status });
}
