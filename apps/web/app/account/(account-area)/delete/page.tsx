import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { requireSession } from "../../../../src/auth/session";
import { PageSection } from "../../../../src/components/page-section";
import { DeleteForm } from "./delete-form";

export const generateMetadata = titleFrom("deletion", "title");

/**
 * Deleting the account, and exactly what it does: the account is anonymised (orders and invoices are sales records the
 * seller must keep), every key, session, app and device ends, subscriptions stop, cards go.
 */
export default async function DeleteAccountPage() {
  const session = await requireSession("/account/delete");
  const t = await getTranslations("deletion");
  return (
    <PageSection title={t("title")} lead={t("lead")}>
      <section className="card narrow-card stack">
        <h2>{t("whatHappens")}</h2>
        <ul className="stack">
          <li>{t("what.signIn")}</li>
          <li>{t("what.keys")}</li>
          <li>{t("what.devices")}</li>
          <li>{t("what.subscriptions")}</li>
          <li>{t("what.orders")}</li>
          <li>{t("what.log")}</li>
          <li>{t("what.email")}</li>
        </ul>
        <p className="warning">{t("final")}</p>
      </section>
      <section className="card narrow-card">
        <h2>{t("formTitle")}</h2>
        <DeleteForm email={session.email} />
      </section>
    </PageSection>
  );
}
