import { CardSection } from "@shelf/web-kit/card-section";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { getTranslations } from "next-intl/server";
import { cache } from "react";
import { type PageSession, pageCaller, requireSession } from "../../../../src/auth/session";
import { contentAssetHref, typeLabeler } from "../../../../src/format";
import { refusalOf } from "../../../../src/forms/errors";
import { shownName } from "../../../../src/names";
import { DownloadList } from "./download-list";
import { EndedProduct, OfferedProduct } from "./not-held";
import {
  ProductArticle,
  ProductDelivery,
  ProductLicense,
  ProductManual,
  ProductMcp,
  ProductReleases,
} from "./product-parts";

type Props = { params: Promise<{ product: string }> };

const CHANNELS = ["stable", "beta", "alpha", "dev"] as const;

/**
 * What the signed-in person has of the product: the library's item while their access lasts, otherwise the product's
 * name and how its access ended, otherwise the product as the catalog offers it (published), or nothing (404). Once
 * per render (metadata and page).
 */
const findProduct = cache(async (session: PageSession, id: number) => {
  const caller = await pageCaller(session);
  const item = (await caller.library.get({})).value().items.find((entry) => entry.product.id === id);
  if (item) return { caller, item, ended: null, offered: null };
  const ended = await caller.library.ended({ product: id });
  if (ended) return { caller, item: null, ended, offered: null };
  const offered = await caller.products.get({ product: id }).then(
    ({ product }) => product,
    (error: unknown) => {
      if (refusalOf(error)) return null;
      throw error;
    },
  );
  return offered ? { caller, item: null, ended: null, offered } : null;
});

function productId(raw: string): number | null {
  return /^[1-9]\d{0,9}$/.test(raw) ? Number(raw) : null;
}

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const t = await getTranslations("product");
  const id = productId((await params).product);
  const session = id === null ? null : await requireSession(`/account/products/${id}`);
  const found = session && id !== null ? await findProduct(session, id) : null;
  const name = found?.item?.product.name ?? found?.ended?.product_name ?? found?.offered?.name;
  return { title: name ? t("titleOf", { name }) : t("title") };
}

/** One product of the library: downloads, license and devices, its MCP server, setup steps and releases. */
export default async function ProductPage({ params }: Props) {
  const id = productId((await params).product);
  if (id === null) notFound();
  const session = await requireSession(`/account/products/${id}`);
  const found = await findProduct(session, id);
  if (!found) notFound();
  const t = await getTranslations("product");
  if (found.ended) return <EndedProduct ended={found.ended} />;
  if (found.offered) return <OfferedProduct product={found.offered} />;
  if (!found.item) notFound();
  const { caller, item } = found;
  const [detail, releases, { license }, plans] = await Promise.all([
    caller.products.detail({ product: id }),
    caller.products.releases({ product: id }),
    caller.license.product({ product: id }),
    Promise.all(
      CHANNELS.map((channel) =>
        caller.products.install({ product: id, channel }).then(
          (plan) => plan.data,
          () => null,
        ),
      ),
    ),
  ]);
  const downloads = plans.filter(
    (plan, at): plan is NonNullable<typeof plan> =>
      plan !== null && plans.findIndex((other) => other?.version === plan.version) === at,
  );
  const typeLabel = await typeLabeler();
  const manual = detail.manual;
  return (
    <ProductArticle
      back={{ href: "/account", label: t("back") }}
      name={item.product.name}
      beside={
        <>
          <p className="muted">{typeLabel(item.product.type_label)}</p>
          <p className="badges">
            {!license.licensed && <span className="badge warn">{t(`codes.${license.code}`)}</span>}
            {license.licensed && !license.update_window_open && <span className="badge warn">{t("updatesEnded")}</span>}
          </p>
          {detail.product.description && <p>{detail.product.description}</p>}
        </>
      }
    >
      {detail.hero_path && (
        // biome-ignore lint/performance/noImgElement: next/image sets an inline style the CSP refuses, and its optimizer would fetch the file without the reader's session.
        <img
          className="product-hero"
          src={contentAssetHref(item.product.id, detail.hero_path)}
          alt={detail.hero_alt ?? ""}
          width={480}
          height={270}
        />
      )}
      <CardSection id="downloads" title={t("downloads")}>
        <DownloadList productId={id} plans={downloads} />
        {item.product.install_assets.length > 0 && (
          <>
            <h3>{t("installAssets")}</h3>
            <ul>
              {item.product.install_assets.map((asset) => (
                <li key={asset.path}>
                  <a href={contentAssetHref(item.product.id, asset.path)}>{asset.label}</a>{" "}
                  <span className="muted small">{shownName(asset.platform)}</span>
                </li>
              ))}
            </ul>
          </>
        )}
      </CardSection>
      <ProductLicense productId={id} license={license} />
      {item.mcp_server && <ProductMcp server={item.mcp_server} />}
      <ProductDelivery detail={detail} progress={item.setup_progress} />
      {manual && (manual.summary || manual.install_steps.length > 0) && (
        <ProductManual productId={id} manual={manual} completed={item.setup_progress.completed_step_indexes} />
      )}
      <ProductReleases releases={releases.releases} />
    </ProductArticle>
  );
}
