import { ActionLinks } from "@shelf/web-kit/action-links";
import { CardSection } from "@shelf/web-kit/card-section";
import type { Metadata } from "next";
import { getTranslations } from "next-intl/server";
import type { ReactNode } from "react";

export async function generateMetadata(): Promise<Metadata> {
  const t = await getTranslations("home");
  return { title: t("metaTitle") };
}

const ROLES = ["collect", "write", "review", "read"] as const;
const code = (chunks: ReactNode) => <code>{chunks}</code>;

/** The front page: what the design host is for, and where an agent or a person goes from here. */
export default async function Home() {
  const t = await getTranslations("home");
  return (
    <div className="stack-large">
      <section className="intro">
        <h1>{t("title")}</h1>
        <p className="lead">{t("lead")}</p>
      </section>

      <CardSection id="agent-api" title={t("agentApi.title")}>
        <p>{t("agentApi.body")}</p>
        <ul className="roles">
          {ROLES.map((role) => (
            <li key={role}>
              <code>{role}</code> {t(`agentApi.roles.${role}`)}
            </li>
          ))}
        </ul>
        <p>{t.rich("agentApi.token", { code })}</p>
        <pre className="command">
          <code>npm run admin -- design-token:create --name collector --roles collect,read</code>
        </pre>
        <ActionLinks
          main={{ href: "/docs/api", label: t("agentApi.reference") }}
          other={{ href: "/api/openapi.json", label: t("agentApi.document") }}
        />
      </CardSection>

      <CardSection id="gallery" title={t("gallery.title")}>
        <p>{t("gallery.body")}</p>
        <p className="actions">
          <a href="/screens" className="button">
            {t("gallery.open")}
          </a>
        </p>
      </CardSection>

      <CardSection id="skill" title={t("skill.title")}>
        <p>{t.rich("skill.body", { code })}</p>
        <p>
          <code>/.well-known/agent-skills/index.json</code>
        </p>
      </CardSection>
    </div>
  );
}
