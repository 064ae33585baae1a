CREATE TABLE "collect_assets" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "collect_assets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"run_id" integer NOT NULL,
	"sha256" text NOT NULL,
	"type" text NOT NULL,
	"url" text NOT NULL,
	"size" integer NOT NULL,
	"object_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "collect_assets_sha256_hex" CHECK ("collect_assets"."sha256" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "collect_assets_type" CHECK ("collect_assets"."type" IN ('css', 'js'))
);
--> statement-breakpoint
CREATE TABLE "collect_captures" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "collect_captures_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"run_id" integer NOT NULL,
	"key" text NOT NULL,
	"url" text NOT NULL,
	"viewport" text NOT NULL,
	"lang" text NOT NULL,
	"auth" boolean NOT NULL,
	"outcome" text NOT NULL,
	"message" text,
	"login_stage" boolean,
	"saved_state" boolean,
	"final_url" text,
	"http_status" integer,
	"meta" jsonb,
	"image_sha256" text NOT NULL,
	"image_type" text NOT NULL,
	"image_width" integer NOT NULL,
	"image_height" integer NOT NULL,
	"image_size" integer NOT NULL,
	"image_key" text NOT NULL,
	"html_sha256" text,
	"html_size" integer,
	"html_key" text,
	"assets" text[] DEFAULT '{}'::text[] NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "collect_captures_key_length" CHECK (char_length("collect_captures"."key") = 40),
	CONSTRAINT "collect_captures_viewport" CHECK ("collect_captures"."viewport" IN ('desktop', 'mobile')),
	CONSTRAINT "collect_captures_lang" CHECK ("collect_captures"."lang" IN ('ko', 'en')),
	CONSTRAINT "collect_captures_outcome" CHECK ("collect_captures"."outcome" IN ('ok', 'failed', 'redirected')),
	CONSTRAINT "collect_captures_image_type" CHECK ("collect_captures"."image_type" IN ('png', 'jpeg', 'webp')),
	CONSTRAINT "collect_captures_html" CHECK (("collect_captures"."html_key" IS NULL) = ("collect_captures"."html_sha256" IS NULL))
);
--> statement-breakpoint
CREATE TABLE "collect_runs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "collect_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"status" text DEFAULT 'open' NOT NULL,
	"apps" text[],
	"viewports" text[] NOT NULL,
	"langs" text[] NOT NULL,
	"opener_token_id" integer,
	"opener_name" text NOT NULL,
	"lease_expires_at" timestamp with time zone NOT NULL,
	"error" text,
	"accounts" jsonb,
	"build_versions" text[],
	"replay" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"submitted_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	CONSTRAINT "collect_runs_status" CHECK ("collect_runs"."status" IN ('open', 'submitted', 'replaying', 'replayed', 'failed')),
	CONSTRAINT "collect_runs_viewports" CHECK (cardinality("collect_runs"."viewports") > 0),
	CONSTRAINT "collect_runs_langs" CHECK (cardinality("collect_runs"."langs") > 0)
);
--> statement-breakpoint
ALTER TABLE "collect_assets" ADD CONSTRAINT "collect_assets_run_id_collect_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."collect_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_captures" ADD CONSTRAINT "collect_captures_run_id_collect_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."collect_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "collect_runs" ADD CONSTRAINT "collect_runs_opener_token_id_design_tokens_id_fk" FOREIGN KEY ("opener_token_id") REFERENCES "public"."design_tokens"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "collect_assets_run_sha256_key" ON "collect_assets" USING btree ("run_id","sha256");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_captures_run_key" ON "collect_captures" USING btree ("run_id","key");--> statement-breakpoint
CREATE UNIQUE INDEX "collect_runs_one_open" ON "collect_runs" USING btree ((true)) WHERE "collect_runs"."status" = 'open';--> statement-breakpoint
CREATE INDEX "collect_runs_created_at_index" ON "collect_runs" USING btree ("created_at");