CREATE TABLE "email_links" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "email_links_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"purpose" text NOT NULL,
	"email" text NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "email_links_token_hash_hex" CHECK ("email_links"."token_hash" ~ '^[0-9a-f]{64}$'),
	CONSTRAINT "email_links_purpose" CHECK ("email_links"."purpose" IN ('verify', 'change'))
);
--> statement-breakpoint
ALTER TABLE "security_events" DROP CONSTRAINT "security_events_kind";--> statement-breakpoint
ALTER TABLE "invoices" DROP CONSTRAINT "invoices_account_id_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "orders" DROP CONSTRAINT "orders_account_id_accounts_id_fk";
--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "email_verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "accounts" ADD COLUMN "deleted_at" timestamp with time zone;--> statement-breakpoint
-- Accounts made before sign-up verified addresses count as verified: nobody is asked to prove an address after the fact.
UPDATE "accounts" SET "email_verified_at" = "created_at";--> statement-breakpoint
ALTER TABLE "client_policy_revocations" ADD COLUMN "blocked_by_account_id" integer;--> statement-breakpoint
ALTER TABLE "email_links" ADD CONSTRAINT "email_links_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "email_links_token_hash_key" ON "email_links" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "email_links_account_id_index" ON "email_links" USING btree ("account_id");--> statement-breakpoint
ALTER TABLE "client_policy_revocations" ADD CONSTRAINT "client_policy_revocations_blocked_by_account_id_accounts_id_fk" FOREIGN KEY ("blocked_by_account_id") REFERENCES "public"."accounts"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "security_events" ADD CONSTRAINT "security_events_kind" CHECK ("security_events"."kind" IN ('sign_in', 'sign_in_failed', 'password_changed', 'password_reset', 'email_changed', 'email_verified', 'key_created', 'key_revoked', 'device_released', 'device_blocked', 'app_connected', 'app_disconnected', 'account_deleted'));