import type { Database } from "@shelf/db";
import { type ReleaseChannel, releaseChannels } from "@shelf/db/enums";
import type { Caller } from "../../auth/caller";
import { visibleChannels } from "../../catalog/channels";
import { withinUpdateWindow } from "../../catalog/releases";
import { DomainError } from "../../errors";
import { findProductAccess, NO_ACCOUNT, type ProductAccess } from "../../product-access";

/**
 * Who may see what on the app host. Without a key (or with a key of an account not entitled to the product):
 * published products, the feed of every channel, and downloads of free products' stable releases only. A key of an
 * entitled account widens that to unpublished products and downloads of every channel within the buyer's update
 * window.
 */
export async function distributionAccess(
  db: Database,
  caller: Caller | null,
  productId: number,
): Promise<ProductAccess> {
  if (caller && caller.productId !== null && caller.productId !== productId) {
    throw new DomainError("product_api_key_scope_required");
  }
  const access = await findProductAccess(db, caller?.accountId ?? NO_ACCOUNT, productId);
  if (!access || (!access.published && !access.entitlement)) throw new DomainError("not_found", "Product not found.");
  return access;
}

/**
 * The channels a feed lists: those the requested channel sees, or all of them (the combined feed, each non-stable
 * item tagged with its channel, so that a Sparkle app picks its channels itself). The same for every reader: a key
 * widens which products and which downloads, not which releases are announced.
 */
export function feedChannels(channel: ReleaseChannel | undefined): ReleaseChannel[] {
  return channel ? visibleChannels(channel) : [...releaseChannels];
}

/** Whether this caller may download a release of the product; throws the answer when not. */
export function assertMayDownload(
  access: ProductAccess,
  caller: Caller | null,
  release: { channel: ReleaseChannel; releasedAt: Date },
): void {
  if (access.entitlement) {
    if (!withinUpdateWindow(access.entitlement.updatesSupportedUntil, release.releasedAt)) {
      throw new DomainError("version_update_window_expired");
    }
    return;
  }
  const free = access.published && access.unitPriceCents === 0 && release.channel === "stable";
  if (!free) throw notEntitled(caller, "Downloads of this product are for its buyers: send their key.");
}

function notEntitled(caller: Caller | null, message: string): DomainError {
  return caller ? new DomainError("product_entitlement_required") : new DomainError("missing_api_key", message);
}
