CREATE TABLE "device_sign_ins" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "device_sign_ins_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"device_code_hash" text NOT NULL,
	"user_code_hash" text NOT NULL,
	"client" text NOT NULL,
	"device_name" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"account_id" integer,
	"api_key_id" integer,
	"interval_seconds" integer DEFAULT 5 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_polled_at" timestamp with time zone,
	"decided_at" timestamp with time zone,
	CONSTRAINT "device_sign_ins_status" CHECK ("device_sign_ins"."status" IN ('pending', 'approved', 'denied', 'issued')),
	CONSTRAINT "device_sign_ins_decided" CHECK (("device_sign_ins"."status" = 'pending') = ("device_sign_ins"."account_id" IS NULL)),
	CONSTRAINT "device_sign_ins_interval" CHECK ("device_sign_ins"."interval_seconds" BETWEEN 1 AND 600)
);
--> statement-breakpoint
CREATE TABLE "oauth_clients" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"redirect_uris" text[] NOT NULL,
	"registration" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oauth_clients_registration" CHECK ("oauth_clients"."registration" IN ('dynamic', 'metadata_document'))
);
--> statement-breakpoint
CREATE TABLE "oauth_grants" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "oauth_grants_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"client_id" text NOT NULL,
	"scopes" text[] NOT NULL,
	"redirect_uri" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_used_at" timestamp with time zone,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "web_sessions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "web_sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "web_sessions_token_hash_hex" CHECK ("web_sessions"."token_hash" ~ '^[0-9a-f]{64}$')
);
--> statement-breakpoint
ALTER TABLE "device_sign_ins" ADD CONSTRAINT "device_sign_ins_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_sign_ins" ADD CONSTRAINT "device_sign_ins_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD CONSTRAINT "oauth_grants_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_grants" ADD CONSTRAINT "oauth_grants_client_id_oauth_clients_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."oauth_clients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "web_sessions" ADD CONSTRAINT "web_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "device_sign_ins_device_code_key" ON "device_sign_ins" USING btree ("device_code_hash");--> statement-breakpoint
CREATE UNIQUE INDEX "device_sign_ins_user_code_key" ON "device_sign_ins" USING btree ("user_code_hash");--> statement-breakpoint
CREATE INDEX "device_sign_ins_expires_at_index" ON "device_sign_ins" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_grants_live_key" ON "oauth_grants" USING btree ("account_id","client_id") WHERE "oauth_grants"."revoked_at" IS NULL;--> statement-breakpoint
CREATE INDEX "oauth_grants_client_id_index" ON "oauth_grants" USING btree ("client_id");--> statement-breakpoint
CREATE UNIQUE INDEX "web_sessions_token_hash_key" ON "web_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "web_sessions_account_id_index" ON "web_sessions" USING btree ("account_id");