import type { Database } from "@shelf/db";
import { type ReleaseChannel, releaseChannels } from "@shelf/db/enums";
import type { Caller } from "../../auth/caller";
import { DomainError } from "../../errors";
import { findProductAccess, NO_ACCOUNT, type ProductAccess } from "../products/access";
import { visibleChannels } from "../products/channels";
import { withinUpdateWindow } from "../products/service";

/**
 * Who may see what on the app host. Without a key (or with a key of an account not entitled to the product):
 * published products, their stable releases, and downloads of free products only. A key of an entitled account
 * widens that to unpublished products, every channel, and downloads within the buyer's update window.
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

/** The channels a feed lists: those the requested channel sees, or all of them (the combined feed). */
export function feedChannels(access: ProductAccess, caller: Caller | null, channel: ReleaseChannel | undefined) {
  if (access.entitlement) return channel ? visibleChannels(channel) : [...releaseChannels];
  if (channel === undefined || channel === "stable") return ["stable"] satisfies ReleaseChannel[];
  throw notEntitled(caller, `The ${channel} channel is for the product's buyers: send their key.`);
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
