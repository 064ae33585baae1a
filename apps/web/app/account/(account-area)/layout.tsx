import { getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import { ACCOUNT_AREA } from "../../../src/components/account-area";
import { NavLink } from "../../../src/components/nav-link";

/** The person's own account: profile (name, email, password), signed-in browsers, the security log, deletion. */
export default async function AccountAreaLayout({ children }: { children: ReactNode }) {
  const t = await getTranslations("accountArea");
  return (
    <div className="settings">
      <nav aria-label={t("nav")} className="sub-nav">
        {ACCOUNT_AREA.map(({ href, label }) => (
          <NavLink key={href} href={href}>
            {t(label)}
          </NavLink>
        ))}
      </nav>
      <div className="settings-body">{children}</div>
    </div>
  );
}
