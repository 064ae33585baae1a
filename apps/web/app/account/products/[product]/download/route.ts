import { redirect } from "next/navigation";
import { pageCaller, requireSession } from "../../../../../src/auth/session";
import { refusalOf } from "../../../../../src/forms/errors";

const CHANNELS = ["stable", "beta", "alpha", "dev"] as const;
type Channel = (typeof CHANNELS)[number];
const isChannel = (value: string): value is Channel => (CHANNELS as readonly string[]).includes(value);

type Params = { params: Promise<{ product: string }> };

/**
 * The product page's Download button: a signed link made when it is pressed (they last minutes, a page may stay open
 * for hours), then the browser is sent to it. When the channel's build is no longer the one the page showed (a newer
 * release, access that ended), back to the product page, which says what there is now.
 */
export async function GET(request: Request, { params }: Params): Promise<Response> {
  const { product } = await params;
  const query = new URL(request.url).searchParams;
  const channel = query.get("channel") ?? "stable";
  const back = `/account/products/${product}`;
  if (!/^[1-9]\d{0,9}$/.test(product) || !isChannel(channel)) redirect(back);
  const session = await requireSession(`${back}#downloads`);
  let url: string | null = null;
  try {
    const { data } = await (await pageCaller(session)).products.install({
      product: Number(product),
      channel,
    });
    if (!query.has("version") || query.get("version") === data.version) url = data.download_url;
  } catch (error) {
    if (!refusalOf(error)) throw error;
  }
  return new Response(null, {
    status: 303,
    headers: { location: url ?? `${back}#downloads`, "cache-control": "no-store" },
  });
}
