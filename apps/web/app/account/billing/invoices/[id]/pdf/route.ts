import { invoicePdf } from "@shelf/api";
import { notFound } from "next/navigation";
import { getLocale } from "next-intl/server";
import { pageCaller, requireSession } from "../../../../../../src/auth/session";
import { refusalOf } from "../../../../../../src/forms/errors";
import { getRuntime } from "../../../../../../src/runtime";

type Params = { params: Promise<{ id: string }> };

/**
 * An invoice of the person's account as a PDF (`/account/billing/invoices/{id}.pdf`, rewritten here), in the page's
 * language: another account's, or none, is the pages' 404.
 */
export async function GET(_request: Request, { params }: Params): Promise<Response> {
  const { id } = await params;
  const session = await requireSession(`/account/billing/invoices/${id}`);
  if (!/^[1-9]\d{0,9}$/.test(id)) notFound();
  const document = await (await pageCaller(session)).orders
    .invoiceDocument({ invoice: Number(id) })
    .catch((error: unknown) => {
      if (refusalOf(error)) notFound();
      throw error;
    });
  const language = (await getLocale()) === "ko" ? "ko" : "en";
  const { disclosure, invoiceFont } = getRuntime();
  const pdf = await invoicePdf(document, disclosure?.[language] ?? null, language, invoiceFont);
  return new Response(new Uint8Array(pdf), {
    headers: {
      "content-type": "application/pdf",
      "content-length": String(pdf.length),
      "content-disposition": `inline; filename="${document.invoice.number}.pdf"`,
      "cache-control": "private, no-store",
    },
  });
}
