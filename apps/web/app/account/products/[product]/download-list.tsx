import type { ProductInstallData } from "@shelf/api/schemas";
import { getTranslations } from "next-intl/server";
import { CopyText } from "../../../../src/components/copy-text";
import { sizeFormatter } from "../../../../src/format";
import { shownName } from "../../../../src/names";

type Props = { productId: number; plans: ProductInstallData[] };

/**
 * The product's builds, stable first: the first plan (the stable one, when there is one) as the page's main action,
 * the others (beta, alpha, development) behind a quieter choice, as builds most people should not take. Each button
 * asks for a fresh signed link when it is pressed (`./download`), so a page left open never offers a dead link.
 */
export async function DownloadList({ productId, plans }: Props) {
  const t = await getTranslations("product");
  const td = await getTranslations("downloadList");
  const size = await sizeFormatter();
  const [main, ...others] = plans;
  if (!main) return <p className="empty">{t("noDownloads")}</p>;
  const item = (plan: ProductInstallData, primary: boolean) => {
    const channel = plan.channel ?? "stable";
    const href = `/account/products/${productId}/download?${new URLSearchParams({ channel, version: plan.version })}`;
    return (
      <li key={plan.version} className="download">
        <p>
          <a className={primary ? "button" : "button secondary"} href={href} download={plan.filename}>
            {t("download", { version: plan.version })}
          </a>{" "}
          <span className={channel === "stable" ? "badge" : "badge warn"}>{t(`channels.${channel}`)}</span>
        </p>
        <dl className="facts">
          <div>
            <dt>{t("file")}</dt>
            <dd>
              <code>{plan.filename}</code>
            </dd>
          </div>
          <div>
            <dt>{t("platform")}</dt>
            <dd>{shownName(plan.target)}</dd>
          </div>
          <div>
            <dt>{t("size")}</dt>
            <dd>{size(plan.size)}</dd>
          </div>
        </dl>
        <CopyText
          id={`sha256-${channel}`}
          label={t("sha256", { version: plan.version })}
          value={plan.sha256}
          copy={t("copy")}
          copied={t("copied")}
        />
      </li>
    );
  };
  return (
    <>
      <ul className="downloads">{item(main, true)}</ul>
      {others.length > 0 && (
        <details className="other-builds">
          <summary>{td("others", { count: others.length })}</summary>
          <p className="muted small">{td("othersLead")}</p>
          <ul className="downloads">{others.map((plan) => item(plan, false))}</ul>
        </details>
      )}
    </>
  );
}
