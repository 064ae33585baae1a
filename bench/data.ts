import { keys } from "@shelf/api";
import type { DbHandle } from "@shelf/db";

export type BenchData = {
  /** Keys of accounts holding 10, 50 and 1,000 products. */
  keys: { p10: string; p50: string; p1000: string };
  /** A device sign-in key (the six device abilities) of the 50-product account: the licensing scenarios use it. */
  deviceKey: string;
  /** A product the 50-product account is entitled to, with stable releases. */
  updateProductId: number;
  /** Another of its products: the download scenario publishes its newest release, with a real file. */
  downloadProductId: number;
  /**
   * Two more, alike (same releases, no device limit), one for each server: the new-device scenario takes its seats
   * there, so that the thousands it adds never weigh on the seated check of `updateProductId` (which counts that
   * product's seats), nor one server's seats on the other's.
   */
  seatProductIds: { app: number; baseline: number };
  counts: Record<string, number>;
};

const SHA = "0123456789abcdef".repeat(4);
/** A stand-in Ed25519 signature (64 bytes, base64), so feed items are as long as real ones. */
const ED_SIGNATURE = Buffer.alloc(64, 7).toString("base64");

/**
 * A realistic data set in bulk SQL: 1,000 accounts, 1,000 products with taxonomy and releases, at least 20,000
 * entitlements and 5,000 keys; three accounts hold 10, 50 and 1,000 products for the library scenarios.
 */
export async function loadBenchData({ db, sql }: DbHandle): Promise<BenchData> {
  await sql`insert into accounts (email, name) select 'bench' || g || '@bench.test', 'Bench ' || g from generate_series(1, 1000) g`;
  await sql`insert into categories (name) select 'Category ' || g from generate_series(1, 20) g`;
  await sql`insert into tags (name, type) select 'tag-' || g, 'topic' from generate_series(1, 40) g`;
  await sql`
    insert into products (slug, name, kind, description, unit_price_cents, list_price_cents, currency, platforms,
      primary_category_id, manual, thumbnail_html, hero_path, hero_alt)
    select 'bench-' || g, 'Product ' || lpad(g::text, 4, '0'), (array['app','skill','extension','tool'])[1 + g % 4],
      'A realistic description of product ' || g || ' that explains what it does for the people who buy it.',
      500 + (g % 50) * 100, 900 + (g % 50) * 100, 'USD', array['macos','linux'],
      (select id from categories order by id offset (g % 20) limit 1),
      jsonb_build_object('summary', 'Install and verify', 'requirements', jsonb_build_array('macOS 14'),
        'install_steps', jsonb_build_array('Download', 'Open', 'Sign in'), 'verification_steps', jsonb_build_array('Run it'),
        'troubleshooting', jsonb_build_array()),
      '<img src="/img/' || g || '.png" alt="">', '/hero/' || g || '.png', 'Product ' || g
    from generate_series(1, 1000) g`;
  await sql`insert into product_categories (product_id, category_id, position)
    select p.id, c.id, 0 from products p join categories c on c.id = p.primary_category_id`;
  await sql`insert into product_tags (product_id, tag_id, position)
    select p.id, t.id, t.id % 3 from products p join tags t on t.id in (1 + p.id % 40, 1 + (p.id + 7) % 40)`;
  // Release files are named but not stored: the scenarios that read releases never open them (the download
  // scenario publishes a real file of its own).
  await sql`insert into releases (product_id, version, channel, notes, artifact_key, artifact_filename,
      artifact_content_type, artifact_sha256, artifact_size, artifact_ed_signature, released_at)
    select p.id, v.version, v.channel::release_channel, 'Notes for ' || v.version,
      'artifacts/00/' || gen_random_uuid(), 'product-' || p.id || '-' || v.version || '.zip', 'application/zip',
      ${SHA}, 1048576, ${ED_SIGNATURE}, now() - v.age
    from products p cross join (values ('1.0.0', 'stable', interval '60 days'), ('1.1.0', 'stable', interval '30 days'),
      ('1.2.0-beta.1', 'beta', interval '3 days')) v(version, channel, age)`;
  await sql`insert into product_setup_outputs (product_id, title, prompt) select id, 'Report', 'Write the report' from products`;
  // Every third product installs as a macOS app; the first hundred carry two install assets each.
  await sql`update products set delivery = jsonb_build_object('schema_version', 1, 'strategy', 'macos-app',
      'payload', jsonb_build_object('app_path', '/Applications/Product ' || id || '.app', 'bundle_id', 'test.bench.p' || id),
      'targets', jsonb_build_array('macos'),
      'dependencies', jsonb_build_array(jsonb_build_object('kind', 'macos-version', 'name', null,
        'version_constraint', '>=14', 'architectures', jsonb_build_array('arm64', 'x86_64'), 'bundle_id', null)),
      'launch', jsonb_build_object('kind', 'open-app'), 'requires_confirmation', false, 'compatibility', true)
    where id % 3 = 0`;
  await sql`insert into product_install_assets (product_id, platform, label, path, position)
    select p.id, a.platform, a.label, 'assets/' || a.platform || '/Setup ' || p.id || '.txt', a.position
    from products p cross join (values ('macos', 'macOS notes', 0), ('linux', 'Linux notes', 1)) a(platform, label, position)
    where p.id <= 100`;

  const special = await sql<{ id: number }[]>`select id from accounts order by id limit 3`;
  const [p10, p50, p1000] = special.map((row) => row.id) as [number, number, number];
  await sql`insert into entitlements (account_id, product_id, grant_type)
    select ${p10}::int, id, 'purchase' from products order by id limit 10`;
  await sql`insert into entitlements (account_id, product_id, grant_type)
    select ${p50}::int, id, 'purchase' from products order by id limit 50`;
  await sql`insert into entitlements (account_id, product_id, grant_type)
    select ${p1000}::int, id, 'grant' from products`;
  await sql`insert into entitlements (account_id, product_id, grant_type)
    select a.id, 1 + (a.id * 37 + k * 101) % 1000, 'purchase'
    from accounts a cross join generate_series(1, 19) k where a.id > ${p1000}`;
  await sql`insert into api_keys (account_id, product_id, kind, name, prefix, hash, abilities)
    select a.id, case when k <= 3 then null else 1 + (a.id + k) % 1000 end, 'created', 'bulk',
      'shelf_' || substr(md5(a.id || '-' || k), 1, 8), encode(sha256((a.id || '-' || k || '-bench')::bytea), 'hex'),
      array['products.read', 'mcp.read', 'device.install']
    from accounts a cross join generate_series(1, 6) k where a.id > ${p1000}`;

  // The 50-product account runs MCP servers for ten products and has set up twenty.
  await sql`insert into mcp_servers (account_id, product_id, name)
    select ${p50}::int, product_id, 'Server ' || product_id from entitlements where account_id = ${p50} order by product_id limit 10`;
  await sql`insert into mcp_tools (mcp_server_id, product_id, name)
    select s.id, s.product_id, 'tool_' || t from mcp_servers s cross join generate_series(1, 3) t`;
  await sql`insert into setup_progress (account_id, product_id, completed_step_indexes, completed_at)
    select ${p50}::int, product_id, case when product_id % 2 = 0 then '{0,1,2}'::int[] else '{1}'::int[] end,
      case when product_id % 2 = 0 then now() - interval '2 days' end
    from entitlements where account_id = ${p50} order by product_id limit 20`;

  const abilities = ["products.read", "mcp.read", "device.install", "device.usage"] as const;
  const key = async (accountId: number) =>
    (await keys.createApiKey(db, { accountId, abilities: [...abilities] }, "shelf")).key;
  const [updateProduct, downloadProduct] = await sql<
    { id: number }[]
  >`select product_id as id from entitlements where account_id = ${p50} order by product_id limit 2`;
  // Like the first (product 1): not a macOS app, so no bundle id in the answer.
  const [appSeatProduct, baselineSeatProduct] = await sql<{ id: number }[]>`
    select product_id as id from entitlements where account_id = ${p50} and product_id > 2 and product_id % 3 = 1
    order by product_id limit 2`;
  const counts = await sql<{ name: string; n: number }[]>`
    select 'accounts' as name, count(*)::int as n from accounts union all
    select 'products', count(*)::int from products union all
    select 'entitlements', count(*)::int from entitlements union all
    select 'api_keys', count(*)::int from api_keys union all
    select 'releases', count(*)::int from releases`;
  await sql`analyze`;
  const deviceKey = (await keys.createApiKey(db, { accountId: p50, kind: "device", client: "bench" }, "shelf")).key;
  return {
    keys: { p10: await key(p10), p50: await key(p50), p1000: await key(p1000) },
    deviceKey,
    updateProductId: updateProduct?.id as number,
    downloadProductId: downloadProduct?.id as number,
    seatProductIds: { app: appSeatProduct?.id as number, baseline: baselineSeatProduct?.id as number },
    counts: Object.fromEntries(counts.map((row) => [row.name, row.n + (row.name === "api_keys" ? 4 : 0)])),
  };
}
