CREATE TABLE "gallery_counts" (
	"facet" text NOT NULL,
	"value" text NOT NULL,
	"label" text NOT NULL,
	"count" integer NOT NULL,
	"ref" integer,
	CONSTRAINT "gallery_counts_facet_value_pk" PRIMARY KEY("facet","value"),
	CONSTRAINT "gallery_counts_count" CHECK ("gallery_counts"."count" >= 0)
);
--> statement-breakpoint
ALTER TABLE "gallery_screens" ADD COLUMN "variant_mask" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "gallery_screens_current_facts" ON "gallery_screens" USING btree ("id","app_id","page_type","variant_mask") WHERE "gallery_screens"."status" = 'current';--> statement-breakpoint
-- Screens replayed before the mask existed: their variants' states, as design-gallery/variant-mask.ts numbers them.
UPDATE "gallery_screens" AS s SET "variant_mask" = m.mask
FROM (
  SELECT v.screen_id, bit_or(1 << ((CASE v.viewport WHEN 'desktop' THEN 0 ELSE 1 END * 2
    + CASE v.lang WHEN 'ko' THEN 0 ELSE 1 END) * 3 + CASE v.mode WHEN 'light' THEN 0 WHEN 'dark' THEN 1 ELSE 2 END)) AS mask
  FROM "gallery_screen_variants" AS v GROUP BY v.screen_id
) AS m
WHERE m.screen_id = s.id;
