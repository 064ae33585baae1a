import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { requireSession } from "../../../../src/auth/session";
import { PageSection } from "../../../../src/components/page-section";
import { EmailForm } from "./email-form";
import { NameForm } from "./name-form";
import { PasswordForm } from "./password-form";

export const generateMetadata = titleFrom("security", "title");

export default async function SecurityPage() {
  const session = await requireSession("/account/profile");
  const t = await getTranslations("security");
  const profile = await getTranslations("profile");
  const email = await getTranslations("email");
  const deletion = await getTranslations("deletion");
  return (
    <PageSection title={t("title")} lead={t("lead", { email: session.email })}>
      <section className="card narrow-card">
        <h2>{profile("title")}</h2>
        <NameForm name={session.name} />
      </section>
      <section className="card narrow-card stack">
        <h2>{email("title")}</h2>
        <p className="row">
          <span className="account-address">{session.email}</span>{" "}
          {session.emailVerified ? (
            <span className="badge">{email("verifiedBadge")}</span>
          ) : (
            <span className="badge warn">{email("unverifiedBadge")}</span>
          )}
        </p>
        {!session.emailVerified && <p className="muted">{email("unverifiedHint")}</p>}
        <h3>{email("changeTitle")}</h3>
        <p className="muted">{email("changeLead")}</p>
        <EmailForm />
      </section>
      <section className="card narrow-card">
        <h2>{t("passwordTitle")}</h2>
        <PasswordForm />
      </section>
      <section className="card narrow-card stack">
        <h2>{deletion("title")}</h2>
        <p className="muted">{deletion("teaser")}</p>
        <p>
          <a href="/account/delete" className="button secondary">
            {deletion("open")}
          </a>
        </p>
      </section>
    </PageSection>
  );
}
