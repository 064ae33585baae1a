ALTER TABLE "gallery_flows" ADD COLUMN "viewport" text;--> statement-breakpoint
ALTER TABLE "gallery_flows" ADD COLUMN "lang" text;--> statement-breakpoint
-- A walk used to be made of every state a run visited, in the order its first viewport and language found the pages
-- (the collector walks those first): each existing walk is taken as its run's walk in that viewport and language.
UPDATE "gallery_flows" AS f SET "viewport" = r."viewports"[1], "lang" = r."langs"[1],
  "slug" = f."slug" || '-' || r."viewports"[1] || '-' || r."langs"[1]
FROM "collect_runs" AS r WHERE r."id" = f."run_id" AND f."kind" = 'walk';--> statement-breakpoint
ALTER TABLE "gallery_flows" ADD CONSTRAINT "gallery_flows_walk_state" CHECK (("gallery_flows"."kind" = 'walk') = ("gallery_flows"."viewport" IS NOT NULL) AND ("gallery_flows"."viewport" IS NULL) = ("gallery_flows"."lang" IS NULL));