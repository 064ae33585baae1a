import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getLocale, getTranslations } from "next-intl/server";
import { cache } from "react";
import { type PageSession, pageCaller, requireSession } from "../../../../../src/auth/session";
import { PrintButton } from "../../../../../src/components/print-button";
import { dateFormatter, moneyFormatter } from "../../../../../src/format";
import { refusalOf } from "../../../../../src/forms/errors";
import { getRuntime } from "../../../../../src/runtime";

type Props = { params: Promise<{ id: string }> };

/** The invoice of the person's account, or null (another account's, or none): once per render. */
const findInvoice = cache(async (session: PageSession, raw: string) => {
  if (!/^[1-9]\d{0,9}$/.test(raw)) return null;
  return (await pageCaller(session)).orders.invoiceDocument({ invoice: Number(raw) }).catch((error: unknown) => {
    if (refusalOf(error)) return null;
    throw error;
  });
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const found = await findInvoice(await requireSession(`/account/billing/invoices/${id}`), id);
  const t = await getTranslations("invoiceDocument");
  return { title: found ? t("titleOf", { number: found.invoice.number }) : t("title") };
}

/**
 * An invoice as a printable page (and its PDF beside it): the seller's disclosure, the buyer, the items, supply value
 * and VAT for KRW, and the total, each in the invoice's currency.
 */
export default async function InvoicePage({ params }: Props) {
  const { id } = await params;
  const session = await requireSession(`/account/billing/invoices/${id}`);
  const found = await findInvoice(session, id);
  if (!found) notFound();
  const { invoice, buyer, lines, payment_method } = found;
  const [t, date, money, locale] = await Promise.all([
    getTranslations("invoiceDocument"),
    dateFormatter(),
    moneyFormatter(),
    getLocale(),
  ]);
  const seller = getRuntime().disclosure?.[locale === "ko" ? "ko" : "en"];
  const discount = lines.reduce((sum, line) => sum + line.discount_cents, 0);
  return (
    <article className="stack-large invoice">
      <p className="no-print">
        <a href="/account/billing#invoices">{t("back")}</a>
      </p>
      <header>
        <h1>{t("titleOf", { number: invoice.number })}</h1>
        <p className="actions-row no-print">
          <a className="button" href={`/account/billing/invoices/${invoice.id}.pdf`} download>
            {t("pdf")}
          </a>
          <PrintButton label={t("print")} />
        </p>
      </header>
      <dl className="facts">
        <div>
          <dt>{t("status")}</dt>
          <dd>{invoice.status_label}</dd>
        </div>
        <div>
          <dt>{t("issued")}</dt>
          <dd>{date(invoice.issued_at)}</dd>
        </div>
        {invoice.paid_at && (
          <div>
            <dt>{t("paid")}</dt>
            <dd>{date(invoice.paid_at)}</dd>
          </div>
        )}
        {invoice.order_number && (
          <div>
            <dt>{t("order")}</dt>
            <dd>{invoice.order_number}</dd>
          </div>
        )}
        {payment_method && (
          <div>
            <dt>{t("payment")}</dt>
            <dd>{t.has(`methods.${payment_method}`) ? t(`methods.${payment_method}`) : payment_method}</dd>
          </div>
        )}
      </dl>
      <div className="parties">
        <section aria-labelledby="seller">
          <h2 id="seller">{t("seller")}</h2>
          {seller ? (
            <address>
              {seller.company_name}
              <br />
              {t("representative")}: {seller.representative_name}
              <br />
              {t("registration")}: {seller.business_registration_number}
              <br />
              {t("mailOrder")}: {seller.mail_order_registration_number}
              <br />
              {seller.address}
              <br />
              {seller.phone} · {seller.email}
            </address>
          ) : (
            <p className="muted">{t("noSeller")}</p>
          )}
        </section>
        <section aria-labelledby="buyer">
          <h2 id="buyer">{t("buyer")}</h2>
          <address>
            {buyer.name && (
              <>
                {buyer.name}
                <br />
              </>
            )}
            {buyer.email}
          </address>
        </section>
      </div>
      <div className="table-wrap">
        <table className="invoice-lines">
          <thead>
            <tr>
              <th scope="col">{t("item")}</th>
              <th scope="col" className="number">
                {t("quantity")}
              </th>
              <th scope="col" className="number">
                {t("unitPrice")}
              </th>
              <th scope="col" className="number">
                {t("amount")}
              </th>
            </tr>
          </thead>
          <tbody>
            {lines.map((line, index) => (
              // Lines have no id of their own; their order is the invoice's.
              // biome-ignore lint/suspicious/noArrayIndexKey: see above
              <tr key={index}>
                <td>{line.name}</td>
                <td className="number">{line.quantity}</td>
                <td className="number">{money(line.unit_price_cents, invoice.currency)}</td>
                <td className="number">{money(line.amount_cents, invoice.currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <dl className="totals">
        {discount > 0 && (
          <div>
            <dt>{t("discount")}</dt>
            <dd>{money(-discount, invoice.currency)}</dd>
          </div>
        )}
        {invoice.supply_cents !== null && invoice.vat_cents !== null && (
          <>
            <div>
              <dt>{t("supply")}</dt>
              <dd>{money(invoice.supply_cents, invoice.currency)}</dd>
            </div>
            <div>
              <dt>{t("vat")}</dt>
              <dd>{money(invoice.vat_cents, invoice.currency)}</dd>
            </div>
          </>
        )}
        <div className="grand">
          <dt>{t("total")}</dt>
          <dd>{money(invoice.total_cents, invoice.currency)}</dd>
        </div>
      </dl>
      {invoice.vat_cents !== null && <p className="muted small">{t("vatNote")}</p>}
    </article>
  );
}
