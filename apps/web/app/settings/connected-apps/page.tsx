import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { ConfirmButton } from "../../../src/components/confirm-button";
import { PageSection } from "../../../src/components/page-section";
import { CodeTags, RecordTable } from "../../../src/components/record-table";
import { dateFormatter } from "../../../src/format";
import { disconnectAppAction } from "./actions";

export const generateMetadata = titleFrom("apps", "title");

/** The apps the person let act for them through OAuth (MCP clients): what each may do, and a way to cut it off. */
export default async function ConnectedAppsPage() {
  const session = await requireSession("/settings/connected-apps");
  const apps = await (await pageCaller(session)).connectedApps.list();
  const t = await getTranslations("apps");
  const date = await dateFormatter();
  return (
    <PageSection title={t("title")} lead={t("lead")}>
      <RecordTable
        rows={apps.length}
        empty={t("empty")}
        headers={[t("name"), t("redirectHost"), t("scopes"), t("created"), t("lastUsed")]}
        actions={t("actions")}
      >
        {apps.map((app) => (
          <tr key={app.id}>
            <td data-label={t("name")}>{app.client_name}</td>
            <td data-label={t("redirectHost")}>
              <code>{app.redirect_host}</code>
            </td>
            <td data-label={t("scopes")}>
              <CodeTags items={app.scopes} />
            </td>
            <td data-label={t("created")}>{date(app.created_at)}</td>
            <td data-label={t("lastUsed")}>{app.last_used_at ? date(app.last_used_at, true) : t("never")}</td>
            <td className="row-actions">
              <ConfirmButton
                label={t("disconnect")}
                title={t("disconnectTitle", { name: app.client_name })}
                body={t("disconnectBody")}
                confirmLabel={t("disconnectConfirm")}
                cancelLabel={t("cancel")}
                action={disconnectAppAction}
                fields={{ id: String(app.id) }}
              />
            </td>
          </tr>
        ))}
      </RecordTable>
    </PageSection>
  );
}
