ALTER TABLE "accounts" ADD COLUMN "terms_accepted_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "accepted_terms_url" text;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "accepted_privacy_url" text;