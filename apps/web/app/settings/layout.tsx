import { getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import { NavLink } from "../../src/components/nav-link";

/** Developer settings: keys, connected apps, the password, the security log. */
export default async function SettingsLayout({ children }: { children: ReactNode }) {
  const t = await getTranslations("settings");
  const log = await getTranslations("securityLog");
  const sessions = await getTranslations("sessions");
  return (
    <div className="settings">
      <nav aria-label={t("nav")} className="sub-nav">
        <NavLink href="/settings/api-keys">{t("apiKeys")}</NavLink>
        <NavLink href="/settings/connected-apps">{t("connectedApps")}</NavLink>
        <NavLink href="/settings/security">{t("security")}</NavLink>
        <NavLink href="/settings/sessions">{sessions("nav")}</NavLink>
        <NavLink href="/settings/security-log">{log("nav")}</NavLink>
      </nav>
      <div className="settings-body">{children}</div>
    </div>
  );
}
