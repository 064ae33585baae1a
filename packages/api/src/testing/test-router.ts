import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { type Database, schema } from "@shelf/db";
import { FileOutput, RedirectOutput, TextOutput } from "@shelf/server/plain";
import { and, eq } from "drizzle-orm";
import { z } from "zod";
import { DomainError } from "../errors";
import { accountProcedure, productProcedure, publicProcedure } from "../procedures";
import { IdParam } from "../schemas/common";
import { router } from "../trpc";

const tags = ["test"];

/** One of the account's MCP servers; another account's is not found, exactly like a missing one. */
async function ownServer(db: Database, accountId: number, serverId: number) {
  const [row] = await db
    .select()
    .from(schema.mcpServers)
    .where(and(eq(schema.mcpServers.id, serverId), eq(schema.mcpServers.accountId, accountId)));
  if (!row) throw new DomainError("not_found", "No such MCP server.");
  return row;
}

/**
 * Routes that exist only in tests, built like real ones: a plain route about a product, a JSON body, a route naming
 * an account's own row, a file route whose path takes slashes, a redirect and a public route. The edge and the
 * security matrix are proven on them as on the account API.
 */
export function createTestRouter(options: { filesDir: string }) {
  /** A file of the calling account, under its own folder; anything that leaves the folder names nothing. */
  async function accountFile(accountId: number, name: string) {
    const root = path.join(options.filesDir, String(accountId));
    const file = path.resolve(root, name);
    if (!file.startsWith(`${root}${path.sep}`)) throw new DomainError("not_found", "No such file.");
    const stat = await fs.stat(file).catch(() => null);
    if (!stat?.isFile()) throw new DomainError("not_found", "No such file.");
    return { file, stat };
  }

  return router({
    note: productProcedure
      .meta({
        ability: "products.read",
        product: "visible",
        plain: {
          method: "GET",
          path: "/api/test/products/{product}/note.txt",
          contentTypes: ["text/plain"],
          summary: "A note about a product",
          tags,
        },
      })
      .input(z.object({ lines: z.number().int().min(1).max(3).optional() }))
      .output(TextOutput)
      .query(({ ctx, input }) => ({
        kind: "text",
        contentType: "text/plain; charset=utf-8",
        body: Array.from({ length: input.lines ?? 1 }, () => `product ${ctx.product.id}`).join("\n"),
      })),

    echo: accountProcedure
      .meta({
        ability: "products.read",
        openapi: { method: "POST", path: "/api/test/echo", tags, summary: "Echoes a typed body" },
        example: { build: () => ({ body: { qty: 1 } }) },
      })
      .input(
        z.object({
          qty: z.number().int(),
          flag: z.boolean().optional(),
          name: z.string().max(20).optional(),
          labels: z.array(z.string()).optional(),
        }),
      )
      .output(
        z.object({
          qty: z.number().int(),
          flag: z.boolean().optional(),
          name: z.string().optional(),
          labels: z.array(z.string()).optional(),
        }),
      )
      .mutation(({ input }) => input),

    server: accountProcedure
      .meta({
        ability: "products.read",
        openapi: { method: "GET", path: "/api/test/mcp-servers/{server}", tags, summary: "One MCP server" },
        example: {
          build: async ({ db, accountId, productId }) => {
            const [row] = await db
              .insert(schema.mcpServers)
              .values({ accountId, productId, name: "Example" })
              .returning({ id: schema.mcpServers.id });
            return { params: { server: row?.id as number } };
          },
        },
      })
      .input(z.object({ server: IdParam }))
      .output(z.object({ id: z.number().int(), name: z.string() }))
      .query(async ({ ctx, input }) => {
        const { id, name } = await ownServer(ctx.db, ctx.caller.accountId, input.server);
        return { id, name };
      }),

    addTool: accountProcedure
      .meta({
        ability: "products.read",
        successStatus: 201,
        openapi: { method: "POST", path: "/api/test/mcp-servers/{server}/tools", tags, summary: "Adds a tool" },
        example: {
          build: async ({ db, accountId, productId }) => {
            const [row] = await db
              .insert(schema.mcpServers)
              .values({ accountId, productId, name: "Tools" })
              .onConflictDoUpdate({
                target: [schema.mcpServers.accountId, schema.mcpServers.productId],
                set: { name: "Tools" },
              })
              .returning({ id: schema.mcpServers.id });
            return { params: { server: row?.id as number }, body: { name: `tool-${Date.now()}-${Math.random()}` } };
          },
        },
      })
      .input(z.object({ server: IdParam, name: z.string().min(1).max(100) }))
      .output(z.object({ id: z.number().int(), name: z.string() }))
      .mutation(async ({ ctx, input }) => {
        const server = await ownServer(ctx.db, ctx.caller.accountId, input.server);
        const [tool] = await ctx.db
          .insert(schema.mcpTools)
          .values({ mcpServerId: server.id, productId: server.productId, name: input.name })
          .returning({ id: schema.mcpTools.id, name: schema.mcpTools.name });
        return tool as { id: number; name: string };
      }),

    file: accountProcedure
      .meta({
        ability: "any-key",
        plain: {
          method: "GET",
          path: "/api/test/files/{name+}",
          contentTypes: ["application/octet-stream"],
          summary: "One of the account's files",
          tags,
        },
        example: {
          build: async ({ accountId }) => {
            const folder = path.join(options.filesDir, String(accountId), "docs");
            await fs.mkdir(folder, { recursive: true });
            await fs.writeFile(path.join(folder, "hello world.txt"), "hello, world\n");
            return { params: { name: "docs/hello world.txt" } };
          },
        },
      })
      .input(z.object({ name: z.string().min(1) }))
      .output(FileOutput)
      .query(async ({ ctx, input }) => {
        const { file, stat } = await accountFile(ctx.caller.accountId, input.name);
        return {
          kind: "file",
          contentType: "application/octet-stream",
          size: stat.size,
          etag: `${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}`,
          lastModified: stat.mtime,
          filename: path.basename(file),
          cacheControl: "private, no-cache",
          open: (range) => createReadStream(file, range ?? {}),
        };
      }),

    away: publicProcedure
      .meta({
        ability: "public",
        plain: {
          method: "GET",
          path: "/api/test/away",
          contentTypes: [],
          summary: "Somewhere else",
          tags,
        },
      })
      .input(z.object({ to: z.enum(["docs", "home"]).default("home") }))
      .output(RedirectOutput)
      .query(({ input }) => ({ kind: "redirect", status: 302, location: `https://example.test/${input.to}` })),
  });
}
