CREATE TABLE "product_content_assets" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "product_content_assets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"product_id" integer NOT NULL,
	"path" text NOT NULL,
	"storage_key" text NOT NULL,
	"sha256" text NOT NULL,
	"size" bigint NOT NULL,
	"content_type" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "product_content_assets_sha256_hex" CHECK ("product_content_assets"."sha256" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "product_content_assets_size" CHECK ("product_content_assets"."size" >= 0)
);
--> statement-breakpoint
DROP INDEX "releases_product_channel_version_key";--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "artifact_key" text;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "artifact_content_type" text;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "artifact_ed_signature" text;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "signing_kid" text;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "min_os_version" text;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "platform" text;--> statement-breakpoint
ALTER TABLE "releases" ADD COLUMN "critical" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "product_content_assets" ADD CONSTRAINT "product_content_assets_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "product_content_assets_product_path_key" ON "product_content_assets" USING btree ("product_id","path");--> statement-breakpoint
CREATE UNIQUE INDEX "releases_product_version_key" ON "releases" USING btree ("product_id","version");--> statement-breakpoint
-- Before this migration no artifact bytes could be stored: checksums and names were stand-ins with nothing to serve.
UPDATE "releases" SET "artifact_sha256" = NULL, "artifact_size" = NULL, "artifact_filename" = NULL WHERE "artifact_key" IS NULL;--> statement-breakpoint
ALTER TABLE "releases" ADD CONSTRAINT "releases_artifact_complete" CHECK (("releases"."artifact_key" IS NULL) = ("releases"."artifact_sha256" IS NULL) AND ("releases"."artifact_key" IS NULL) = ("releases"."artifact_size" IS NULL) AND ("releases"."artifact_key" IS NULL) = ("releases"."artifact_filename" IS NULL));