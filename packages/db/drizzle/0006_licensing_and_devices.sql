CREATE TABLE "client_policy" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"min_client_version" text DEFAULT '0.0.0' NOT NULL,
	"ttl_days" integer DEFAULT 14 NOT NULL,
	"recheck_hours" integer DEFAULT 24 NOT NULL,
	"version" integer DEFAULT 1 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "client_policy_single_row" CHECK ("client_policy"."id" = 1),
	CONSTRAINT "client_policy_ttl_days" CHECK ("client_policy"."ttl_days" BETWEEN 1 AND 365),
	CONSTRAINT "client_policy_recheck_hours" CHECK ("client_policy"."recheck_hours" BETWEEN 1 AND 8760)
);
--> statement-breakpoint
CREATE TABLE "client_policy_revocations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "client_policy_revocations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"product_id" integer NOT NULL,
	"device_identifier" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_activations" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "device_activations_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"product_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"api_key_id" integer,
	"app_version" text,
	"activated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_checked_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_installs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "device_installs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"product_id" integer NOT NULL,
	"api_key_id" integer NOT NULL,
	"version" text NOT NULL,
	"bundle_id" text,
	"installed_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "device_usage" (
	"account_id" integer NOT NULL,
	"product_id" integer NOT NULL,
	"api_key_id" integer NOT NULL,
	"usage_date" date NOT NULL,
	"launches" integer NOT NULL,
	"commands" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "device_usage_account_id_product_id_api_key_id_usage_date_pk" PRIMARY KEY("account_id","product_id","api_key_id","usage_date"),
	CONSTRAINT "device_usage_launches" CHECK ("device_usage"."launches" BETWEEN 0 AND 1000000)
);
--> statement-breakpoint
CREATE TABLE "subscriptions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "subscriptions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"product_id" integer,
	"is_pass" boolean DEFAULT false NOT NULL,
	"status" text DEFAULT 'active' NOT NULL,
	"is_trial" boolean DEFAULT false NOT NULL,
	"tier" text,
	"features" text[] DEFAULT '{}'::text[] NOT NULL,
	"allowed_apps" text[] DEFAULT '{}'::text[] NOT NULL,
	"starts_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ends_at" timestamp with time zone,
	"grace_days" integer DEFAULT 0 NOT NULL,
	"cancelled_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "subscriptions_status" CHECK ("subscriptions"."status" IN ('active', 'trialing', 'past_due', 'cancelled', 'expired')),
	CONSTRAINT "subscriptions_grace_days" CHECK ("subscriptions"."grace_days" BETWEEN 0 AND 365),
	CONSTRAINT "subscriptions_period" CHECK ("subscriptions"."ends_at" IS NULL OR "subscriptions"."ends_at" > "subscriptions"."starts_at")
);
--> statement-breakpoint
ALTER TABLE "devices" ADD COLUMN "last_app_version" text;--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "issued_by_key_id" integer;--> statement-breakpoint
ALTER TABLE "client_policy_revocations" ADD CONSTRAINT "client_policy_revocations_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_activations" ADD CONSTRAINT "device_activations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_activations" ADD CONSTRAINT "device_activations_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_activations" ADD CONSTRAINT "device_activations_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_activations" ADD CONSTRAINT "device_activations_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_installs" ADD CONSTRAINT "device_installs_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_installs" ADD CONSTRAINT "device_installs_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_installs" ADD CONSTRAINT "device_installs_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_usage" ADD CONSTRAINT "device_usage_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_usage" ADD CONSTRAINT "device_usage_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_usage" ADD CONSTRAINT "device_usage_api_key_id_api_keys_id_fk" FOREIGN KEY ("api_key_id") REFERENCES "public"."api_keys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "client_policy_revocations_product_device_key" ON "client_policy_revocations" USING btree ("product_id","device_identifier");--> statement-breakpoint
CREATE UNIQUE INDEX "device_activations_account_product_device_key" ON "device_activations" USING btree ("account_id","product_id","device_id");--> statement-breakpoint
CREATE INDEX "device_activations_device_id_index" ON "device_activations" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "device_activations_api_key_id_index" ON "device_activations" USING btree ("api_key_id");--> statement-breakpoint
CREATE UNIQUE INDEX "device_installs_report_key" ON "device_installs" USING btree ("api_key_id","product_id","version","installed_at");--> statement-breakpoint
CREATE INDEX "device_installs_account_id_product_id_index" ON "device_installs" USING btree ("account_id","product_id");--> statement-breakpoint
CREATE INDEX "device_usage_product_id_usage_date_index" ON "device_usage" USING btree ("product_id","usage_date");--> statement-breakpoint
CREATE INDEX "subscriptions_account_id_index" ON "subscriptions" USING btree ("account_id");--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_issued_by_key_id_api_keys_id_fk" FOREIGN KEY ("issued_by_key_id") REFERENCES "public"."api_keys"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "products_bundle_id_idx" ON "products" USING btree (("delivery"->'payload'->>'bundle_id'));--> statement-breakpoint
CREATE INDEX "api_keys_issued_by_key_id_index" ON "api_keys" USING btree ("issued_by_key_id");--> statement-breakpoint
-- The one policy row every client reads; operators change it with policy:set.
INSERT INTO "client_policy" ("id") VALUES (1) ON CONFLICT DO NOTHING;
