import { parseArgs } from "node:util";
import {
  type CollectApp,
  type CollectLang,
  type CollectViewport,
  collectApps,
  collectLangs,
  collectViewports,
} from "@shelf/db/enums";
import { APP_SPECS } from "./targets";

export const USAGE =
  "usage: npm run design:collect -- --design-url URL --token T --target URL [--apps accounts,design] " +
  "[--viewports desktop,mobile] [--langs ko,en] [--email E --password P] [--out DIR] [--max-pages N] [--chromium PATH]\n" +
  "       npm run design:collect -- --target URL --out DIR [...]          (collect to a folder only)\n" +
  "       npm run design:collect -- --from DIR --design-url URL --token T  (upload a saved run)";

/** Bad command-line input: one line, exit code 1. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export type CollectCommand = {
  kind: "collect";
  upload: { designUrl: string; token: string } | null;
  out: string | null;
  /** The accounts app's address (`--target`); null when it is not walked. */
  target: string | null;
  /** The design app's address (`--design-url`); null when it is not walked. */
  designUrl: string | null;
  apps: CollectApp[];
  viewports: CollectViewport[];
  langs: CollectLang[];
  credentials: { email: string; password: string } | null;
  maxPages: number;
  chromiumPath: string | undefined;
};
export type UploadCommand = { kind: "upload"; from: string; designUrl: string; token: string };
export type Command = CollectCommand | UploadCommand | { kind: "help" };

const DEFAULT_MAX_PAGES = 30;

export function parseCommand(argv: string[]): Command {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        "design-url": { type: "string" },
        token: { type: "string" },
        target: { type: "string" },
        apps: { type: "string" },
        viewports: { type: "string" },
        langs: { type: "string" },
        email: { type: "string" },
        password: { type: "string" },
        out: { type: "string" },
        from: { type: "string" },
        "max-pages": { type: "string" },
        chromium: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0] as string);
  }
  if (values.help) return { kind: "help" };
  const text = (name: string): string | undefined => {
    const value = values[name];
    if (typeof value !== "string") return undefined;
    if (value.trim() === "") throw new UsageError(`--${name} must not be empty`);
    return value.trim();
  };

  const designUrl = optionalUrl(text("design-url"), "design-url");
  const token = text("token");
  if (token !== undefined && designUrl === null) throw new UsageError("--token needs --design-url (where to upload)");

  const from = text("from");
  if (from !== undefined) {
    const extra = ["target", "apps", "viewports", "langs", "email", "password", "out", "max-pages", "chromium"].find(
      (name) => values[name] !== undefined,
    );
    if (extra) throw new UsageError(`--from uploads a saved run as it is: --${extra} does not apply`);
    if (designUrl === null || token === undefined) throw new UsageError("--from needs --design-url and --token");
    return { kind: "upload", from, designUrl, token };
  }

  const target = optionalUrl(text("target"), "target");
  const apps = list(text("apps"), "apps", collectApps) ?? (designUrl ? ["accounts", "design"] : ["accounts"]);
  for (const app of apps) {
    if (!APP_SPECS[app])
      throw new UsageError(`--apps: this collector knows the routes of accounts and design only, not ${app}`);
  }
  if (apps.includes("accounts") && target === null) throw new UsageError("--target URL (the accounts app) is required");
  if (apps.includes("design") && designUrl === null) throw new UsageError("--apps design needs --design-url");
  const email = text("email");
  const password = typeof values.password === "string" ? values.password : undefined;
  if ((email === undefined) !== (password === undefined)) throw new UsageError("--email and --password go together");
  if (password === "") throw new UsageError("--password must not be empty");
  const out = text("out") ?? null;
  const upload = designUrl !== null && token !== undefined ? { designUrl, token } : null;
  if (!upload && out === null) {
    throw new UsageError("nothing to do: give --design-url and --token to upload, or --out DIR to save the run");
  }
  const maxPagesText = text("max-pages");
  const maxPages = maxPagesText === undefined ? DEFAULT_MAX_PAGES : Number(maxPagesText);
  if (!/^\d+$/.test(maxPagesText ?? "1") || !Number.isSafeInteger(maxPages) || maxPages < 1 || maxPages > 500) {
    throw new UsageError(`--max-pages must be a whole number from 1 to 500, got "${maxPagesText}"`);
  }
  return {
    kind: "collect",
    upload,
    out,
    target: apps.includes("accounts") ? target : null,
    designUrl: apps.includes("design") ? designUrl : null,
    apps,
    viewports: list(text("viewports"), "viewports", collectViewports) ?? [...collectViewports],
    langs: list(text("langs"), "langs", collectLangs) ?? [...collectLangs],
    credentials: email !== undefined && password !== undefined ? { email, password } : null,
    maxPages,
    chromiumPath: text("chromium"),
  };
}

function optionalUrl(value: string | undefined, name: string): string | null {
  if (value === undefined) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--${name} must be an http or https URL, got "${value}"`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`--${name} must be an http or https URL, got "${value}"`);
  }
  if (url.pathname !== "/" || url.search !== "" || url.hash !== "") {
    throw new UsageError(`--${name} must be the app's base address with no path, got "${value}"`);
  }
  return url.origin;
}

/** A comma-separated list of known values, each once, in the order the enum lists them. */
function list<T extends string>(value: string | undefined, name: string, known: readonly T[]): T[] | undefined {
  if (value === undefined) return undefined;
  const items = value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
  if (items.length === 0) throw new UsageError(`--${name} needs at least one of ${known.join(", ")}`);
  const unknown = items.find((item) => !(known as readonly string[]).includes(item));
  if (unknown !== undefined) throw new UsageError(`--${name}: unknown value "${unknown}" (one of ${known.join(", ")})`);
  return known.filter((item) => items.includes(item));
}
