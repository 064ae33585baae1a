import { execFile } from "node:child_process";
import fs from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import {
  InstallRecordData,
  LibraryApiData,
  type LibraryApiItemData,
  ProductInstallData,
  ProductSetupProgressData,
} from "@shelf/api/schemas";
import { z } from "zod";
import type { Context } from "../context";
import { downloadVerified, type Plan } from "../download";
import { CliError, ExitCode } from "../errors";
import { checkInstallDir, keptDownload, lockInstall, pathHint, pruneDownloads } from "../install-guards";
import { type InstallRecord, readInstalls, recordInstall } from "../installs";
import type { InstallOutput, SetupOutput, UninstallOutput, UpdateOutput } from "../output";
import { matchProduct, resolveProduct, slugify } from "../product-match";
import { olderThan } from "../trust";
import { checkUpdates } from "./catalog";

const run = promisify(execFile);
const PlanData = z.object({ data: ProductInstallData });

type Item = z.infer<typeof LibraryApiItemData>;

/**
 * The library's item for `term`. A product of the catalog that is not in the library is not the user's to install:
 * exit 5 rather than "no such product".
 */
async function libraryItem(context: Context, term: string): Promise<Item> {
  const api = await context.api();
  const data = await api.get("/api/library", LibraryApiData);
  const items = data.items.map((item) => ({ id: item.product.id, name: item.product.name, item }));
  try {
    return matchProduct(term, items).item;
  } catch (error) {
    if (!(error instanceof CliError) || error.code !== "product_not_found") throw error;
    const listed = await resolveProduct(api, term, "catalog").catch(() => null);
    if (!listed) throw error;
    throw new CliError(
      `This account is not entitled to ${listed.name}, so it cannot be installed.`,
      ExitCode.notEntitled,
      "product_entitlement_required",
      "Buy it or ask for access; `shelf library` lists what you can install.",
    );
  }
}

const isArchive = (filename: string) => /\.(zip|tar|tgz|tar\.(gz|xz|bz2|zst))$/i.test(filename);

/** Unpacks an archive with the system's tar or unzip into a new folder. */
async function unpack(file: string, into: string): Promise<void> {
  await fs.mkdir(into, { recursive: true });
  try {
    if (/\.zip$/i.test(file)) await run("unzip", ["-q", "-o", file, "-d", into]);
    else await run("tar", ["-xf", file, "-C", into]);
  } catch (error) {
    const failure = error as NodeJS.ErrnoException & { stderr?: string; path?: string };
    const tool = /\.zip$/i.test(file) ? "unzip" : "tar";
    if (failure.code === "ENOENT") {
      throw new CliError(
        `The archive could not be unpacked: \`${tool}\` is not installed.`,
        ExitCode.failed,
        "unpack_failed",
        `Install \`${tool}\`, then run the command again.`,
      );
    }
    // The tool's own words say what is wrong with the file (not an archive, cut short, a bad entry).
    const reason = failure.stderr?.trim().split("\n").slice(0, 3).join(" ") || failure.message.split("\n")[0];
    throw new CliError(
      `The archive ${path.basename(file)} could not be unpacked: ${tool} says "${reason}".`,
      ExitCode.failed,
      "unpack_failed",
      "Report it to the seller with `shelf report problem`: the published file is not a usable archive.",
      { tool },
    );
  }
}

/** Puts a prepared folder at `target` in one rename, replacing what was there only once the new one is whole. */
async function swapInto(staging: string, target: string): Promise<void> {
  const old = `${target}.old-${process.pid}`;
  const had = await fs.stat(target).then(
    () => true,
    () => false,
  );
  if (had) await fs.rename(target, old);
  await fs.rename(staging, target);
  if (had) await fs.rm(old, { recursive: true, force: true });
}

/** Where an agent skill is linked for each target host. */
function skillTargets(context: Context, item: Item, slug: string): string[] {
  const home = context.env.HOME ?? "";
  const folders: Record<string, string> = {
    "claude-code": path.join(home, ".claude", "skills", slug),
    codex: path.join(home, ".codex", "skills", slug),
  };
  return item.product.delivery.targets.flatMap((target) => (folders[target] ? [folders[target] as string] : []));
}

/** Installs the verified file per the product's delivery strategy; returns where it went and the links made. */
async function place(
  context: Context,
  item: Item,
  file: string,
  dir: string | undefined,
): Promise<{ installedTo: string | null; links: string[] }> {
  const { strategy, payload } = item.product.delivery;
  const slug = slugify(item.product.name) || String(item.product.id);
  const work = `${file}.unpack-${process.pid}`;
  await fs.rm(work, { recursive: true, force: true });
  try {
    if (strategy === "binary") {
      const root = dir ?? path.join(context.dirs.data, "bin");
      await fs.mkdir(root, { recursive: true });
      let source = file;
      if (isArchive(file)) {
        await unpack(file, work);
        const inside = payload.binary_path ?? payload.executable_name;
        if (!inside) {
          throw new CliError("The product names no binary inside its archive.", ExitCode.failed, "binary_path_missing");
        }
        source = path.join(work, inside);
      }
      const name = payload.executable_name ?? path.basename(payload.binary_path ?? slug);
      const target = path.join(root, name);
      const temporary = `${target}.new-${process.pid}`;
      await fs.copyFile(source, temporary);
      await fs.chmod(temporary, 0o755);
      await fs.rename(temporary, target);
      return { installedTo: target, links: [] };
    }
    if (strategy === "managed-directory" || strategy === "agent-skill") {
      const root = dir ?? context.env.SHELF_INSTALL_DIR ?? path.join(context.dirs.data, "installs");
      const target = path.join(root, slug);
      await fs.mkdir(root, { recursive: true });
      const staging = `${target}.staging-${process.pid}`;
      await fs.rm(staging, { recursive: true, force: true });
      if (isArchive(file)) {
        await unpack(file, work);
        const inner = payload.root ? path.join(work, payload.root) : work;
        await fs.rename(inner, staging);
      } else {
        await fs.mkdir(staging, { recursive: true });
        await fs.copyFile(file, path.join(staging, path.basename(file)));
      }
      await swapInto(staging, target);
      const links: string[] = [];
      if (strategy === "agent-skill") {
        for (const link of skillTargets(context, item, slug)) {
          await fs.mkdir(path.dirname(link), { recursive: true });
          const existing = await fs.lstat(link).catch(() => null);
          if (existing && !existing.isSymbolicLink()) {
            context.say(`Warning: ${link} exists and is not shelf's link: left as it is.`);
            continue;
          }
          if (existing) await fs.rm(link);
          await fs.symlink(target, link, "dir");
          links.push(link);
        }
      }
      return { installedTo: target, links };
    }
    return { installedTo: null, links: [] };
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

function manualSteps(item: Item): string[] {
  return item.product.manual?.install_steps ?? [];
}

export async function installItem(
  context: Context,
  item: Item,
  options: { channel?: string; dir?: string },
): Promise<z.infer<typeof InstallOutput>> {
  const product = { id: item.product.id, name: item.product.name };
  const downloads = path.join(context.dirs.data, "downloads", String(product.id));
  const dir = options.dir ? path.resolve(options.dir) : undefined;
  if (dir) await checkInstallDir(dir);
  const release = await lockInstall(downloads, product.name);
  try {
    return await installLocked(context, item, { ...options, dir }, downloads);
  } finally {
    await release();
  }
}

/** The install itself, while this process alone installs the product. */
async function installLocked(
  context: Context,
  item: Item,
  options: { channel?: string; dir?: string },
  downloads: string,
): Promise<z.infer<typeof InstallOutput>> {
  const api = await context.api();
  const product = { id: item.product.id, name: item.product.name };
  const askPlan = async (): Promise<Plan> =>
    (await api.get(`/api/products/${product.id}/install`, PlanData, { query: { channel: options.channel } })).data;
  const dir = options.dir;
  const plan = await askPlan();
  const installed = (await readInstalls(context.dirs))[String(product.id)];
  if (installed && olderThan(plan.version, installed.version)) {
    context.say(
      `Note: ${plan.version} is older than the installed ${installed.version}; the ${plan.channel ?? "default"} channel's newest is installed.`,
    );
  }
  const kept = installed?.sha256 === plan.sha256 ? await keptDownload(installed.file, plan.sha256) : null;
  if (kept)
    context.say(`${product.name} ${plan.version} is already downloaded here (sha256 verified): no download needed.`);
  const downloaded = kept
    ? { file: kept, resumed: false, renewed: 0, plan }
    : await downloadVerified(context, downloads, plan, askPlan);
  const strategy = item.product.delivery.strategy;
  const { installedTo, links } = await place(context, item, downloaded.file, dir);

  let recorded = false;
  try {
    await api.post("/api/device/installs", InstallRecordData, {
      body: { product_id: product.id, version: downloaded.plan.version },
    });
    recorded = true;
  } catch (error) {
    if (!(error instanceof CliError)) throw error;
    context.say(`Warning: the install was not recorded on the service: ${error.message}`);
  }
  const record: InstallRecord = {
    name: product.name,
    version: downloaded.plan.version,
    channel: options.channel ?? downloaded.plan.channel,
    strategy,
    sha256: downloaded.plan.sha256,
    file: downloaded.file,
    installed_to: installedTo,
    links,
    installed_at: new Date().toISOString(),
  };
  await recordInstall(context.dirs, product.id, record);
  await pruneDownloads(downloads, downloaded.file);

  const steps = manualSteps(item);
  if (installedTo) context.print(`Installed ${product.name} ${downloaded.plan.version} to ${installedTo}`);
  else context.print(`Downloaded ${product.name} ${downloaded.plan.version} to ${downloaded.file}`);
  const notOnPath = strategy === "binary" && installedTo ? pathHint(context, path.dirname(installedTo)) : null;
  if (notOnPath) context.say(notOnPath);
  for (const link of links) context.print(`Linked ${link}`);
  if (strategy !== "binary" && strategy !== "managed-directory" && strategy !== "agent-skill") {
    if (strategy !== "manual")
      context.print(`This client does not install ${strategy} products itself: follow the steps.`);
    if (steps.length > 0) {
      context.print("Steps:");
      for (const [index, step] of steps.entries()) context.print(`  ${index + 1}. ${step}`);
      context.print(
        `When done, tick them on ${context.baseUrl}/account/products/${product.id} (or \`shelf setup ${product.id} --done 1,2,...\` with a key that may record setup progress).`,
      );
    }
  }
  return {
    product,
    version: downloaded.plan.version,
    channel: downloaded.plan.channel,
    strategy,
    sha256: downloaded.plan.sha256,
    size: downloaded.plan.size,
    resumed: downloaded.resumed,
    links_renewed: downloaded.renewed,
    file: downloaded.file,
    installed_to: installedTo,
    links,
    recorded,
    manual_steps: steps,
  };
}

/**
 * Installs a product of the library. Without --channel, a product installed before keeps following the channel it
 * came from (say, dev), rather than falling back to stable's older version unasked.
 */
export async function install(context: Context, term: string, options: { channel?: string; dir?: string }) {
  const item = await libraryItem(context, term);
  const followed = (await readInstalls(context.dirs))[String(item.product.id)]?.channel;
  if (options.channel === undefined && followed) {
    context.say(`Following the ${followed} channel ${item.product.name} was installed from (--channel to change it).`);
    return installItem(context, item, { ...options, channel: followed });
  }
  return installItem(context, item, options);
}

export async function update(context: Context, term: string | undefined): Promise<z.infer<typeof UpdateOutput>> {
  const installs = await readInstalls(context.dirs);
  let only: number | undefined;
  if (term !== undefined) {
    only = matchProduct(
      term,
      Object.entries(installs).map(([id, record]) => ({ id: Number(id), name: record.name })),
    ).id;
  }
  const found = await checkUpdates(context, only);
  const updated = [];
  const upToDate = [];
  for (const entry of found) {
    const record = installs[String(entry.id)] as InstallRecord;
    if (!entry.update_available || !entry.download_allowed) {
      upToDate.push({ id: entry.id, name: entry.name });
      if (entry.update_available) context.say(`${entry.name}: a newer version exists outside your update window.`);
      continue;
    }
    const item = await libraryItem(context, String(entry.id));
    const dir = record.installed_to ? path.dirname(record.installed_to) : undefined;
    updated.push(await installItem(context, item, { channel: record.channel ?? undefined, dir }));
  }
  if (found.length === 0) context.print("Nothing is installed with shelf yet.");
  else if (updated.length === 0) context.print("Everything is up to date.");
  return { updated, up_to_date: upToDate };
}

export async function uninstall(context: Context, term: string): Promise<z.infer<typeof UninstallOutput>> {
  const installs = await readInstalls(context.dirs);
  const match = matchProduct(
    term,
    Object.entries(installs).map(([id, record]) => ({ id: Number(id), name: record.name })),
  );
  const record = installs[String(match.id)] as InstallRecord;
  const removed: string[] = [];
  for (const link of record.links) {
    const stat = await fs.lstat(link).catch(() => null);
    if (stat?.isSymbolicLink()) {
      await fs.rm(link);
      removed.push(link);
    }
  }
  for (const target of [record.installed_to, record.file]) {
    if (!target) continue;
    await fs.rm(target, { recursive: true, force: true });
    removed.push(target);
  }
  await recordInstall(context.dirs, match.id, null);
  context.print(`Removed ${record.name} ${record.version}.`);
  return { product: match, version: record.version, removed };
}

/**
 * Recording setup steps needs `setup-progress.write`, which no key holds from the start (contract 5.6): not the key
 * `shelf login` gets, nor a key created with the defaults. Say what works instead.
 */
function setupNeedsAbility(context: Context, item: Item): CliError {
  const id = item.product.id;
  return new CliError(
    "Recording setup steps needs a key with the setup-progress.write ability, and this key does not hold it (keys from `shelf login` never do).",
    ExitCode.notEntitled,
    "missing_api_key_ability",
    `Tick the steps on the product's page, ${context.baseUrl}/account/products/${id}; or create a key with "record setup progress" ticked in ${context.baseUrl}/settings/api-keys and run this command with SHELF_API_KEY set to it.`,
    { ability: "setup-progress.write" },
  );
}

export async function setup(
  context: Context,
  term: string,
  options: { done: string },
): Promise<z.infer<typeof SetupOutput>> {
  const numbers = options.done.split(",").map((part) => part.trim());
  if (numbers.length === 0 || numbers.some((part) => !/^[1-9]\d{0,3}$/.test(part))) {
    throw new CliError(
      `--done takes step numbers as the manual shows them, like 1,2 (got "${options.done}").`,
      ExitCode.usage,
      "usage",
    );
  }
  const item = await libraryItem(context, term);
  const api = await context.api();
  let progress: z.infer<typeof ProductSetupProgressData>;
  try {
    progress = await api.put(`/api/products/${item.product.id}/setup-progress`, ProductSetupProgressData, {
      body: { completed_step_indexes: numbers.map((part) => Number(part) - 1) },
    });
  } catch (error) {
    if (error instanceof CliError && error.code === "missing_api_key_ability") throw setupNeedsAbility(context, item);
    throw error;
  }
  const steps = progress.completed_step_indexes.map((index) => index + 1);
  context.print(
    `${item.product.name}: ${progress.completed_count} of ${progress.total_count} steps done${progress.completed ? " - setup complete." : "."}`,
  );
  return {
    product: { id: item.product.id, name: item.product.name },
    completed_steps: steps,
    completed_count: progress.completed_count,
    total_count: progress.total_count,
    completed: progress.completed,
  };
}
