import { CardSection } from "@shelf/web-kit/card-section";
import { ListOrEmpty } from "@shelf/web-kit/list-or-empty";
import { getLocale, getTranslations } from "next-intl/server";
import type { ReactNode } from "react";
import type { pageCaller } from "../../../../src/auth/session";
import { ConfirmButton } from "../../../../src/components/confirm-button";
import { RecordTable } from "../../../../src/components/record-table";
import { dateFormatter } from "../../../../src/format";
import { shownName } from "../../../../src/names";
import { blockProductDevice, recordSetupStep, releaseProductDevice } from "./actions";

/**
 * A product's page, whatever the account holds of it: the way back, its name and what is said beside it (badges, a
 * description), then its sections.
 */
export function ProductArticle({
  back,
  name,
  beside,
  children,
}: {
  back: { href: string; label: string };
  name: string;
  beside: ReactNode;
  children: ReactNode;
}) {
  return (
    <article className="stack-large">
      <p>
        <a href={back.href}>{back.label}</a>
      </p>
      <header>
        <h1>{name}</h1>
        {beside}
      </header>
      {children}
    </article>
  );
}

type Caller = Awaited<ReturnType<typeof pageCaller>>;
type License = Awaited<ReturnType<Caller["license"]["product"]>>["license"];
type Detail = Awaited<ReturnType<Caller["products"]["detail"]>>;
type Releases = Awaited<ReturnType<Caller["products"]["releases"]>>["releases"];
type LibraryItem = ReturnType<Awaited<ReturnType<Caller["library"]["get"]>>["value"]>["items"][number];

/** The license: its state, how long access and updates last, the seats, and each device on it (release, block). */
export async function ProductLicense({ productId, license }: { productId: number; license: License }) {
  const [t, date] = await Promise.all([getTranslations("product"), dateFormatter()]);
  const free = license.device_limit === null ? null : Math.max(0, license.device_limit - license.devices_used);
  return (
    <CardSection id="license" title={t("license")}>
      <dl className="facts">
        <div>
          <dt>{t("state")}</dt>
          <dd>{t(`codes.${license.code}`)}</dd>
        </div>
        <div>
          <dt>{t("accessUntil")}</dt>
          <dd>{license.access_expires_at ? date(license.access_expires_at) : t("noEnd")}</dd>
        </div>
        <div>
          <dt>{t("updatesUntil")}</dt>
          <dd>{license.updates_supported_until ? date(license.updates_supported_until) : t("noEnd")}</dd>
        </div>
        <div>
          <dt>{t("seats")}</dt>
          <dd>
            {free === null
              ? t("seatsUnlimited", { used: license.devices_used })
              : t("seatsUsed", { used: license.devices_used, free })}
          </dd>
        </div>
      </dl>
      <p className="muted small">{license.update_window_open ? t("updatesCover") : t("updatesCoverEnded")}</p>
      <h3>{t("devices")}</h3>
      <RecordTable
        rows={license.activations.length}
        empty={t("noDevices")}
        headers={[t("device"), t("lastCheck"), t("appVersion")]}
        actions={t("actions")}
      >
        {license.activations.map(({ device, last_checked_at, app_version }) => (
          <tr key={device.id}>
            <td data-label={t("device")}>
              {device.name ?? t("unnamed")}
              <div className="muted small">
                <code>{device.device_id}</code>
              </div>
            </td>
            <td data-label={t("lastCheck")}>{date(last_checked_at, true)}</td>
            <td data-label={t("appVersion")}>{app_version ?? "—"}</td>
            <td className="row-actions">
              <ConfirmButton
                label={t("release")}
                title={t("releaseTitle", { name: device.name ?? device.device_id })}
                body={t("releaseBody")}
                confirmLabel={t("release")}
                cancelLabel={t("cancel")}
                action={releaseProductDevice}
                fields={{ id: String(device.id), product: String(productId) }}
                dialogId={`release-${device.id}`}
              />{" "}
              <ConfirmButton
                label={t("block")}
                title={t("blockTitle", { name: device.name ?? device.device_id })}
                body={t("blockBody")}
                confirmLabel={t("block")}
                cancelLabel={t("cancel")}
                action={blockProductDevice}
                fields={{ id: String(device.id), product: String(productId) }}
                dialogId={`block-${device.id}`}
              />
            </td>
          </tr>
        ))}
      </RecordTable>
    </CardSection>
  );
}

/** The product's MCP server: its name, whether it is on, and its tools. */
export async function ProductMcp({ server }: { server: NonNullable<LibraryItem["mcp_server"]> }) {
  const t = await getTranslations("product");
  return (
    <CardSection id="mcp" title={t("mcp")}>
      <p>
        <code>{server.name}</code>{" "}
        <span className={server.enabled ? "badge" : "badge warn"}>{server.enabled ? t("enabled") : t("disabled")}</span>
      </p>
      <p className="muted small">{t("mcpLead")}</p>
      <ul className="tags">
        {server.tools.map((tool) => (
          <li key={tool.id}>
            <code>{tool.name}</code>
          </li>
        ))}
      </ul>
    </CardSection>
  );
}

/** How the product is delivered (strategy, platforms, runtime) and how far its setup got. */
export async function ProductDelivery({
  detail,
  progress,
}: {
  detail: Detail;
  progress: LibraryItem["setup_progress"];
}) {
  const [t, strategies] = await Promise.all([getTranslations("product"), getTranslations("deliveryStrategies")]);
  return (
    <CardSection id="delivery" title={t("delivery")}>
      <dl className="facts">
        <div>
          <dt>{t("strategy")}</dt>
          <dd>
            {strategies.has(detail.delivery.strategy) ? strategies(detail.delivery.strategy) : detail.delivery.strategy}
          </dd>
        </div>
        <div>
          <dt>{t("platforms")}</dt>
          <dd>{detail.platforms.length ? detail.platforms.map(shownName).join(", ") : "—"}</dd>
        </div>
        {detail.runtime && (
          <div>
            <dt>{t("runtime")}</dt>
            <dd>{detail.runtime}</dd>
          </div>
        )}
      </dl>
      {progress.total_count > 0 && (
        <div className="setup">
          <label htmlFor="setup">{t("setup", { done: progress.completed_count, total: progress.total_count })}</label>
          <progress id="setup" value={progress.completed_count} max={progress.total_count}>
            {progress.progress_percent}%
          </progress>
        </div>
      )}
    </CardSection>
  );
}

/** The manual: summary, requirements, and the install steps, each ticked off (or not) by the person. */
export async function ProductManual({
  productId,
  manual,
  completed,
}: {
  productId: number;
  manual: NonNullable<Detail["manual"]>;
  completed: number[];
}) {
  const t = await getTranslations("product");
  const steps = manual.install_steps;
  const done = new Set(completed);
  return (
    <CardSection id="manual" title={t("manual")}>
      {manual.summary && <p>{manual.summary}</p>}
      {manual.requirements.length > 0 && (
        <>
          <h3>{t("requirements")}</h3>
          <ul>
            {manual.requirements.map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
        </>
      )}
      {steps.length > 0 && (
        <>
          <h3>{t("installSteps")}</h3>
          <ol className="steps">
            {steps.map((line, index) => (
              <li key={line} className={done.has(index) ? "step done" : "step"}>
                <span>{line}</span>
                <form action={recordSetupStep}>
                  <input type="hidden" name="product" value={productId} />
                  <input type="hidden" name="step" value={index} />
                  <input type="hidden" name="done" value={done.has(index) ? "0" : "1"} />
                  <button type="submit" className="button secondary small">
                    {t(done.has(index) ? "untickStep" : "tickStep", { step: index + 1 })}
                  </button>
                </form>
              </li>
            ))}
          </ol>
        </>
      )}
    </CardSection>
  );
}

/** The releases, newest first, each with its notes in the page's language. */
export async function ProductReleases({ releases }: { releases: Releases }) {
  const [t, date, locale] = await Promise.all([getTranslations("product"), dateFormatter(), getLocale()]);
  const notesOf = (release: Releases[number]) =>
    (locale === "ko" ? release.notes_ko : release.notes_en) ?? release.notes;
  return (
    <CardSection id="releases" title={t("releases")}>
      <ListOrEmpty items={releases} empty={t("noReleases")} ordered className="release-list">
        {(release) => (
          <li key={release.id}>
            <h3>
              <code>{release.version}</code> <span className="badge">{t(`channels.${release.channel}`)}</span>{" "}
              <span className="muted small">{date(release.released_at)}</span>
            </h3>
            {notesOf(release) ? <p className="notes">{notesOf(release)}</p> : <p className="muted">{t("noNotes")}</p>}
          </li>
        )}
      </ListOrEmpty>
    </CardSection>
  );
}
