import { designCollectAdmin, designDocuments, designTokens } from "@shelf/api";
import { type DesignRole, designRoles } from "@shelf/db/enums";
import {
  optionalDate,
  optionalInteger,
  optionalList,
  optionalString,
  requiredInteger,
  requiredString,
  UsageError,
} from "../args";
import { byIdCommand, type Command } from "../command";

function roles(list: string[] | undefined): DesignRole[] {
  if (!list) throw new UsageError(`--roles is required: one or more of ${designRoles.join(", ")}.`);
  const unknown = list.filter((role) => !(designRoles as readonly string[]).includes(role));
  if (unknown.length > 0) {
    throw new UsageError(`--roles: unknown role ${unknown.join(", ")}; the roles are ${designRoles.join(", ")}.`);
  }
  return list as DesignRole[];
}

export const designTokenCreate: Command = {
  name: "design-token:create",
  summary: "Create a design agent token and print it once",
  synopsis: "--name N --roles collect,read,write,review [--expires ISO]",
  details: [
    "Design tokens work only on the design host; account API keys and OAuth tokens do not work there.",
    "collect: collect runs; read: documents and the manifest; write: draft and submit versions; review: verdicts.",
  ],
  options: { name: { type: "string" }, roles: { type: "string" }, expires: { type: "string" } },
  prepare(values) {
    const name = requiredString(values, "name");
    const chosen = roles(optionalList(values, "roles"));
    const expiresAt = optionalDate(values, "expires");
    if (expiresAt && expiresAt.getTime() <= Date.now()) {
      throw new UsageError(`--expires must be in the future, got ${expiresAt.toISOString()}.`);
    }
    return async ({ db, brand }) => {
      const { token, record } = await designTokens.createDesignToken(db, { name, roles: chosen, expiresAt }, brand);
      return {
        json: { id: record.id, token, name: record.name, roles: record.roles, expires_at: record.expires_at },
        text: [
          `Created design token ${record.id} "${record.name}".`,
          `  prefix   ${record.prefix}`,
          `  roles    ${record.roles.join(", ")}`,
          `  expires  ${record.expires_at ?? "never"}`,
          `  token    ${token}`,
          "The token is shown only this once: store it now.",
        ].join("\n"),
      };
    };
  },
};

export const designTokenList: Command = {
  name: "design-token:list",
  summary: "List design agent tokens (never the tokens themselves)",
  synopsis: "",
  options: {},
  prepare() {
    return async ({ db }) => {
      const tokens = await designTokens.listDesignTokens(db);
      const state = (token: (typeof tokens)[number]) =>
        token.revoked_at ? `revoked ${token.revoked_at}` : token.expires_at ? `expires ${token.expires_at}` : "live";
      return {
        json: { tokens },
        text: [
          `${tokens.length} design token(s):`,
          ...tokens.map(
            (token) =>
              `  ${String(token.id).padStart(4)}  ${token.prefix}…  ${token.name}  [${token.roles.join(",")}]  ${state(token)}  last used ${token.last_used_at ?? "never"}`,
          ),
        ].join("\n"),
      };
    };
  },
};

export const designTokenRevoke = byIdCommand({
  name: "design-token:revoke",
  summary: "Revoke a design agent token by id (refused from its next request on)",
  synopsis: "--id ID",
  act: designTokens.revokeDesignToken,
  describe: (record) => `Revoked design token ${record.id} (${record.prefix}) at ${record.revoked_at}.`,
});

export const designDocList: Command = {
  name: "design-doc:list",
  summary: "List design documents with their current, latest and pending versions",
  synopsis: "",
  options: {},
  prepare() {
    return async ({ db }) => {
      const documents: Awaited<ReturnType<typeof designDocuments.listDocuments>>["items"] = [];
      let cursor: string | undefined;
      do {
        const page = await designDocuments.listDocuments(db, { cursor, limit: 100 });
        documents.push(...page.items);
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return {
        json: { documents },
        text: [
          `${documents.length} design document(s):`,
          ...documents.map(
            (document) =>
              `  ${document.slug}  "${document.title}"  current ${document.current_version ?? "none"}, latest ${document.latest_version}, pending ${document.pending_versions.join(",") || "none"}  updated ${document.updated_at}`,
          ),
        ].join("\n"),
      };
    };
  },
};

export const designRunList: Command = {
  name: "design-run:list",
  summary: "List collect runs, newest first: status, opener, counts, lease end",
  synopsis: "[--limit N]",
  details: [
    "An open run holds the collection lock until its lease ends (each upload renews it); design-run:fail frees it now.",
  ],
  options: { limit: { type: "string" } },
  prepare(values) {
    const limit = optionalInteger(values, "limit", { min: 1 }) ?? 50;
    return async ({ db }) => {
      const runs = await designCollectAdmin.listRuns(db, { limit });
      const state = (run: (typeof runs)[number]) =>
        run.status === "open"
          ? `open, lease until ${run.lease_expires_at}`
          : run.error
            ? `${run.status}: ${run.error}`
            : run.status;
      return {
        json: { runs },
        text: [
          `${runs.length} collect run(s):`,
          ...runs.map(
            (run) =>
              `  ${String(run.id).padStart(4)}  ${state(run)}  by ${run.opener}  ${run.counts.captures} capture(s), ${run.counts.assets} asset(s)  created ${run.created_at}`,
          ),
        ].join("\n"),
      };
    };
  },
};

export const designRunFail: Command = {
  name: "design-run:fail",
  summary: "End an open collect run as failed, freeing the collection lock at once",
  synopsis: "--id ID [--reason R]",
  details: ["For a collector that crashed or hangs: the next open would otherwise wait for the run's lease to end."],
  options: { id: { type: "string" }, reason: { type: "string" } },
  prepare(values) {
    const id = requiredInteger(values, "id", { min: 1 });
    const reason = optionalString(values, "reason")?.trim() || undefined;
    if (reason && reason.length > 2000) throw new UsageError("--reason must be at most 2000 characters.");
    return async ({ db }) => {
      const run = await designCollectAdmin.failRunAsOperator(db, id, reason);
      return {
        json: { run },
        text: `Ended collect run ${run.id} (opened by ${run.opener}) as failed: ${run.error}. The collection lock is free.`,
      };
    };
  },
};
