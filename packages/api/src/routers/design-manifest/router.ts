import { Readable } from "node:stream";
import { FileOutput } from "@shelf/server/plain";
import { z } from "zod";
import { listDocuments } from "../../design-documents";
import { SKILL_ARCHIVE_PATH, SKILL_INDEX_SCHEMA, SKILL_NAME, skillPackage } from "../../design-skill/package";
import { designProcedure, designPublicProcedure } from "../../procedures";
import { PageInput } from "../../schemas/design-page";
import { designRoutes } from "../../trpc";
import { ManifestAnswer, SkillIndex } from "./schemas";

const tags = ["manifest"];
/** Where the design host serves its OpenAPI document. */
export const DESIGN_OPENAPI_PATH = "/api/openapi.json";
const INDEX_PATH = "/.well-known/agent-skills/index.json";
const absolute = (baseUrl: string, path: string) => new URL(path, baseUrl).toString();

export const designManifestRouter = designRoutes({
  manifest: designProcedure
    .meta({
      role: "read",
      openapi: {
        method: "GET",
        path: "/api/agent/manifest",
        tags,
        summary: "What exists, and the skill package that teaches this API",
        description:
          "The design documents (slug, title, current and latest version, last change), paged like every list here (`limit` default 20 at most 100, `cursor` = the page before's `next_cursor`), and the agent skill package: its archive's URL, size and sha256, and each file's sha256.",
      },
    })
    .input(PageInput)
    .output(ManifestAnswer)
    .query(async ({ ctx, input }) => {
      const documents = await listDocuments(ctx.db, input);
      const skill = skillPackage();
      return {
        items: documents.items.map(({ slug, title, current_version, latest_version, updated_at }) => ({
          slug,
          title,
          current_version,
          latest_version,
          updated_at,
        })),
        next_cursor: documents.next_cursor,
        skill: {
          name: skill.name,
          description: skill.description,
          index_url: absolute(ctx.baseUrl, INDEX_PATH),
          archive: {
            url: absolute(ctx.baseUrl, SKILL_ARCHIVE_PATH),
            media_type: skill.archive.mediaType,
            size: skill.archive.size,
            sha256: skill.archive.sha256,
          },
          files: skill.files,
        },
        openapi_url: absolute(ctx.baseUrl, DESIGN_OPENAPI_PATH),
      };
    }),

  skillIndex: designPublicProcedure
    .meta({
      ability: "public",
      openapi: {
        method: "GET",
        path: INDEX_PATH,
        tags,
        summary: "The Agent Skills discovery index",
        description:
          "The skill packages this host publishes (Agent Skills discovery, schema 0.2.0): each with its archive's URL and `sha256:` digest. No token.",
      },
    })
    .input(z.object({}))
    .output(SkillIndex)
    .query(() => {
      const skill = skillPackage();
      return {
        $schema: SKILL_INDEX_SCHEMA,
        skills: [
          {
            name: SKILL_NAME,
            type: "archive" as const,
            description: skill.description,
            url: SKILL_ARCHIVE_PATH,
            digest: `sha256:${skill.archive.sha256}`,
          },
        ],
      };
    }),

  skillArchive: designPublicProcedure
    .meta({
      ability: "public",
      plain: {
        method: "GET",
        path: SKILL_ARCHIVE_PATH,
        contentTypes: ["application/gzip"],
        tags,
        summary: "The agent skill package",
        description:
          "A gzip-compressed tar of the skill folder (`SKILL.md` at its root, then `references/`), the same bytes on every instance; its sha256 is the index's digest and the ETag. No token.",
      },
    })
    .input(z.object({}))
    .output(FileOutput)
    .query((): FileOutput => {
      const { archive } = skillPackage();
      return {
        kind: "file",
        contentType: archive.mediaType,
        size: archive.size,
        etag: archive.sha256,
        lastModified: null,
        filename: `${SKILL_NAME}.tar.gz`,
        cacheControl: "public, max-age=300",
        open: (range) => Readable.from(range ? archive.bytes.subarray(range.start, range.end + 1) : archive.bytes),
      };
    }),
});
