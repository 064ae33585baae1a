import { getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import { NavLink } from "../../src/components/nav-link";

/** Developer settings: API keys and the apps connected through OAuth. The person's own account is under /account. */
export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const t = await getTranslations("settings");
  return (
    <div className="settings">
      <nav aria-label={t("nav")} className="sub-nav">
        <NavLink href="/settings/api-keys">{t("apiKeys")}</NavLink>
        <NavLink href="/settings/connected-apps">{t("connectedApps")}</NavLink>
      </nav>
      <div className="settings-body">{children}</div>
    </div>
  );
}
