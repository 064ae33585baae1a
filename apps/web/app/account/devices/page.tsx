import { titleFrom } from "@shelf/web-kit/site-head";
import { getTranslations } from "next-intl/server";
import { pageCaller, requireSession } from "../../../src/auth/session";
import { ConfirmButton } from "../../../src/components/confirm-button";
import { RecordTable } from "../../../src/components/record-table";
import { dateFormatter } from "../../../src/format";
import { releaseDevice, unblockDevice } from "./actions";

export const generateMetadata = titleFrom("devices", "title");

/**
 * The devices seated on the account's products, where a device-limit refusal sends its person (`manage_url`), and the
 * products each is blocked from: a block the person made is lifted here.
 */
export default async function DevicesPage() {
  const session = await requireSession("/account/devices");
  const devices = await (await pageCaller(session)).device.seats();
  const t = await getTranslations("devices");
  const date = await dateFormatter();
  return (
    <section>
      <h1>{t("title")}</h1>
      <p className="muted">{t("lead")}</p>
      <RecordTable
        rows={devices.length}
        empty={t("empty")}
        headers={[t("name"), t("products"), t("lastSeen"), t("version")]}
        actions={t("actions")}
      >
        {devices.map((device) => (
          <tr key={device.id}>
            <td data-label={t("name")}>
              {device.name ?? t("unnamed")}
              <div className="muted small">
                <code>{device.device_id}</code>
              </div>
            </td>
            <td data-label={t("products")}>
              {device.products.map((product) => product.product_name).join(", ") ||
                (device.blocked.length > 0 ? null : "—")}
              {device.blocked.length > 0 && (
                <ul className="blocked-list">
                  {device.blocked.map((block) => (
                    <li key={block.product_id} className="blocked-entry">
                      <span className="badge warn">
                        {t(block.by === "owner" ? "blockedByYou" : "blockedBySeller", { product: block.product_name })}
                      </span>
                      {block.by === "owner" && (
                        <ConfirmButton
                          label={t("unblock")}
                          title={t("unblockTitle", {
                            name: device.name ?? device.device_id,
                            product: block.product_name,
                          })}
                          body={t("unblockBody")}
                          confirmLabel={t("unblock")}
                          cancelLabel={t("cancel")}
                          action={unblockDevice}
                          fields={{ id: String(device.id), product: String(block.product_id) }}
                          dialogId={`unblock-${device.id}-${block.product_id}`}
                          tone="secondary"
                        />
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </td>
            <td data-label={t("lastSeen")}>{date(device.last_seen_at, true)}</td>
            <td data-label={t("version")}>{device.last_app_version ?? "—"}</td>
            <td className="row-actions">
              {device.products.length > 0 && (
                <ConfirmButton
                  label={t("release")}
                  title={t("releaseTitle", { name: device.name ?? device.device_id })}
                  body={t("releaseBody")}
                  confirmLabel={t("releaseConfirm")}
                  cancelLabel={t("cancel")}
                  action={releaseDevice}
                  fields={{ id: String(device.id) }}
                />
              )}
            </td>
          </tr>
        ))}
      </RecordTable>
    </section>
  );
}
