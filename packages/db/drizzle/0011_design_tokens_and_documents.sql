CREATE TABLE "design_document_versions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "design_document_versions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"document_id" integer NOT NULL,
	"number" integer NOT NULL,
	"body" text NOT NULL,
	"status" text DEFAULT 'draft' NOT NULL,
	"author_token_id" integer,
	"author_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"submitted_at" timestamp with time zone,
	CONSTRAINT "design_document_versions_number" CHECK ("design_document_versions"."number" >= 1),
	CONSTRAINT "design_document_versions_status" CHECK ("design_document_versions"."status" IN ('draft', 'submitted', 'approved', 'changes_requested', 'rejected')),
	CONSTRAINT "design_document_versions_submitted" CHECK (("design_document_versions"."status" = 'draft') = ("design_document_versions"."submitted_at" IS NULL))
);
--> statement-breakpoint
CREATE TABLE "design_documents" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "design_documents_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "design_documents_slug" CHECK ("design_documents"."slug" ~ '^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$')
);
--> statement-breakpoint
CREATE TABLE "design_reviews" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "design_reviews_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"version_id" integer NOT NULL,
	"verdict" text NOT NULL,
	"reason" text NOT NULL,
	"reviewer_token_id" integer,
	"reviewer_name" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "design_reviews_verdict" CHECK ("design_reviews"."verdict" IN ('approved', 'changes_requested', 'rejected')),
	CONSTRAINT "design_reviews_reason" CHECK (char_length("design_reviews"."reason") > 0)
);
--> statement-breakpoint
CREATE TABLE "design_tokens" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "design_tokens_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"name" text NOT NULL,
	"prefix" text NOT NULL,
	"hash" text NOT NULL,
	"roles" text[] NOT NULL,
	"expires_at" timestamp with time zone,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "design_tokens_hash_hex" CHECK ("design_tokens"."hash" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "design_tokens_roles" CHECK (cardinality("design_tokens"."roles") > 0 AND "design_tokens"."roles" <@ ARRAY['collect', 'read', 'write', 'review']::text[])
);
--> statement-breakpoint
ALTER TABLE "design_document_versions" ADD CONSTRAINT "design_document_versions_document_id_design_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "public"."design_documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "design_document_versions" ADD CONSTRAINT "design_document_versions_author_token_id_design_tokens_id_fk" FOREIGN KEY ("author_token_id") REFERENCES "public"."design_tokens"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "design_reviews" ADD CONSTRAINT "design_reviews_version_id_design_document_versions_id_fk" FOREIGN KEY ("version_id") REFERENCES "public"."design_document_versions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "design_reviews" ADD CONSTRAINT "design_reviews_reviewer_token_id_design_tokens_id_fk" FOREIGN KEY ("reviewer_token_id") REFERENCES "public"."design_tokens"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "design_document_versions_number_key" ON "design_document_versions" USING btree ("document_id","number");--> statement-breakpoint
CREATE INDEX "design_document_versions_pending" ON "design_document_versions" USING btree ("id") WHERE "design_document_versions"."status" = 'submitted';--> statement-breakpoint
CREATE UNIQUE INDEX "design_documents_slug_key" ON "design_documents" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "design_reviews_version_key" ON "design_reviews" USING btree ("version_id");--> statement-breakpoint
CREATE UNIQUE INDEX "design_tokens_hash_key" ON "design_tokens" USING btree ("hash");