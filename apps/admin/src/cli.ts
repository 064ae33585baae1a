import { parseArgs } from "node:util";
import { createArtifactStore, DomainError, readApiEnv, safeError, signingKeySource, ValidationError } from "@shelf/api";
import { createDb, type Database, databaseUnavailable } from "@shelf/db";
import { readDbEnv, SetupError } from "@shelf/db/env";
import { UsageError } from "./args";
import type { Command, CommandContext, CommandOutput } from "./command";
import { accountCreate } from "./commands/account";
import {
  exchangeRateSet,
  invoiceCreate,
  orderCreate,
  orderRefund,
  paymentMethodAdd,
  subscriptionCancel,
  subscriptionCreate,
  subscriptionResume,
} from "./commands/commerce";
import { demo } from "./commands/demo";
import {
  designDocList,
  designRunFail,
  designRunList,
  designTokenCreate,
  designTokenList,
  designTokenRevoke,
} from "./commands/design";
import { deviceDeactivate, deviceList } from "./commands/device";
import { entitlementGrant } from "./commands/entitlement";
import { housekeeping } from "./commands/housekeeping";
import { keyCreate, keyRevoke } from "./commands/key";
import { passGrant } from "./commands/pass";
import { policyRestore, policyRevoke, policySet } from "./commands/policy";
import { lineageCreate, productCreate, productUpdate } from "./commands/product";
import { assetPut, releasePublish, releaseYank } from "./commands/release";
import { reportList } from "./commands/report";
import { signingPublicKey, signingRotate } from "./commands/signing";

export const commands: Command[] = [
  accountCreate,
  keyCreate,
  keyRevoke,
  productCreate,
  productUpdate,
  lineageCreate,
  entitlementGrant,
  releasePublish,
  releaseYank,
  assetPut,
  passGrant,
  housekeeping,
  orderCreate,
  orderRefund,
  subscriptionCreate,
  subscriptionCancel,
  subscriptionResume,
  paymentMethodAdd,
  invoiceCreate,
  exchangeRateSet,
  reportList,
  deviceList,
  deviceDeactivate,
  policySet,
  policyRevoke,
  policyRestore,
  signingPublicKey,
  signingRotate,
  designTokenCreate,
  designTokenList,
  designTokenRevoke,
  designDocList,
  designRunList,
  designRunFail,
  demo,
];

export type Io = {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  readStdin: () => Promise<string>;
};

/** Exit codes: 0 done, 1 bad arguments or refused by the domain, 2 unknown command. */
const EXIT_ERROR = 1;
const EXIT_UNKNOWN_COMMAND = 2;

/** Service field names in validation errors, as the flags an operator typed. */
const flagForField: Record<string, string> = {
  email: "--email",
  name: "--name",
  password: "--password",
  slug: "--slug",
  kind: "--kind",
  description: "--description",
  unitPriceCents: "--price-cents",
  listPriceCents: "--list-price-cents",
  currency: "--currency",
  deviceLimit: "--device-limit",
  expiresAt: "--expires",
  accessExpiresAt: "--expires",
  updatesSupportedUntil: "--updates-until",
  abilities: "--abilities",
  productId: "--product",
  version: "--version",
  channel: "--channel",
  filename: "--file",
  notesEn: "--notes-en",
  notesKo: "--notes-ko",
  minOsVersion: "--min-os",
  build: "--build",
  platform: "--platform",
  path: "--path",
  until: "--until",
  graceDays: "--grace-days",
  tier: "--tier",
  features: "--features",
  apps: "--apps",
  manualSteps: "--manual-steps",
  minClientVersion: "--min-client-version",
  recheckHours: "--recheck-hours",
  ttlDays: "--ttl-days",
  id: "--id",
  quantity: "--quantity",
  discountCents: "--discount-cents",
  receiptUrl: "--receipt-url",
  totalCents: "--total-cents",
  orderId: "--order",
  subscriptionId: "--subscription",
  dueAt: "--due",
  brand: "--brand",
  last4: "--last4",
  expMonth: "--exp",
  expYear: "--exp",
  krwPerUnit: "--krw",
  source: "--source",
  productIds: "--products",
  position: "--position",
};

function usage(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    "Usage: npm run admin -- <command> [options] [--json]",
    "",
    "Commands:",
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    "",
    "Every command accepts --json (one JSON object on stdout) and --help.",
    "The database is DATABASE_URL, else the embedded PostgreSQL in SHELF_DATA_DIR (default .data).",
  ].join("\n");
}

function commandUsage(command: Command): string {
  return [
    `Usage: npm run admin -- ${command.name} ${command.synopsis} [--json]`.replace(/ +/g, " "),
    "",
    command.summary,
    ...(command.details ?? []).map((line) => `  ${line}`),
  ].join("\n");
}

function describeFailure(error: unknown): { code: string; message: string; errors?: Record<string, string[]> } {
  if (error instanceof UsageError) return { code: "invalid_arguments", message: error.message };
  if (error instanceof SetupError) return { code: "setup_error", message: error.message };
  const unavailable = databaseUnavailable(error);
  if (unavailable) return { code: "database_unavailable", message: `The database stopped answering (${unavailable}).` };
  if (error instanceof DomainError) return { code: error.code, message: error.message };
  if (error instanceof ValidationError) {
    const details = Object.entries(error.errors).map(
      ([field, messages]) => `${flagForField[field] ?? field} ${messages.join("; ")}`,
    );
    return { code: "validation_failed", message: `Invalid input: ${details.join(", ")}.`, errors: error.errors };
  }
  if (error instanceof TypeError && String((error as NodeJS.ErrnoException).code).startsWith("ERR_PARSE_ARGS")) {
    return { code: "invalid_arguments", message: error.message.split("\n")[0] as string };
  }
  return { code: "internal_error", message: safeError(error).message ?? "unexpected failure" };
}

export async function run(argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  const json = argv.includes("--json");
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    (name === undefined ? io.stderr : io.stdout)(`${usage()}\n`);
    return name === undefined ? EXIT_UNKNOWN_COMMAND : 0;
  }
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) {
    const message = `Unknown command "${name}".`;
    if (json) io.stdout(`${JSON.stringify({ error: "unknown_command", message })}\n`);
    io.stderr(`error: ${message}\n\n${usage()}\n`);
    return EXIT_UNKNOWN_COMMAND;
  }

  let output: CommandOutput;
  try {
    const { values } = parseArgs({
      args: rest,
      options: { ...command.options, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    });
    if (values.help) {
      io.stdout(`${commandUsage(command)}\n`);
      return 0;
    }
    const work = command.prepare(values);
    output =
      command.database === false
        ? await work({ ...localContext(), db: noDatabase, readStdin: io.readStdin })
        : await withDatabase((context) => work({ ...context, readStdin: io.readStdin }));
  } catch (error) {
    const failure = describeFailure(error);
    if (json) {
      io.stdout(`${JSON.stringify({ error: failure.code, message: failure.message, errors: failure.errors })}\n`);
    }
    io.stderr(`error: ${failure.message}\n`);
    if (failure.code === "invalid_arguments") {
      io.stderr(`Usage: npm run admin -- ${command.name} ${command.synopsis}\n`.replace(/ +\n/, "\n"));
    } else if (failure.code === "internal_error") {
      // The same care as the logs: a database error's SQL and parameters are never printed.
      const safe = safeError(error);
      if (safe.stack) io.stderr(`${safe.stack}\n`);
    }
    return EXIT_ERROR;
  }
  io.stdout(json ? `${JSON.stringify(output.json)}\n` : `${output.text}\n`);
  return 0;
}

/** What every command knows without a database: the settings and the data folder's files. */
function localContext() {
  const api = readApiEnv();
  const db = readDbEnv();
  return {
    brand: api.SHELF_KEY_PREFIX,
    dataDir: db.SHELF_DATA_DIR,
    signingKeys: signingKeySource(api, db.SHELF_DATA_DIR),
    store: createArtifactStore(api, db.SHELF_DATA_DIR),
    dbEnv: db,
  };
}

/** The database of a command declared `database: false`: touching it is a bug in that command. */
const noDatabase = new Proxy({} as Database, {
  get() {
    throw new Error("This command was declared to work without the database.");
  },
});

/** Opens the database the web app uses, and afterwards closes the pool and stops an embedded server we started. */
async function withDatabase<T>(work: (context: Omit<CommandContext, "readStdin">) => Promise<T>): Promise<T> {
  const { dbEnv, ...local } = localContext();
  // Loaded on demand: help and argument errors need no database and skip loading the embedded server's code.
  const { resolveDatabase, timeoutsOf } = await import("@shelf/db/server");
  const database = await resolveDatabase(dbEnv);
  try {
    const handle = createDb(database.url, { max: 2, timeouts: timeoutsOf(dbEnv) });
    try {
      return await work({ db: handle.db, ...local });
    } finally {
      await handle.close();
    }
  } finally {
    await database.stop();
  }
}
