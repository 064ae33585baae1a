-- Before this migration there were no orders: an entitlement's order ids named nothing, so they are cleared before
-- they become foreign keys.
UPDATE "entitlements" SET "order_id" = NULL, "order_item_id" = NULL WHERE "order_id" IS NOT NULL OR "order_item_id" IS NOT NULL;--> statement-breakpoint
CREATE SEQUENCE "public"."invoice_number_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE SEQUENCE "public"."order_number_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1;--> statement-breakpoint
CREATE TABLE "lineages" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "lineages_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"description" text,
	"active" boolean DEFAULT true NOT NULL,
	"position" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "exchange_rates" (
	"currency" text PRIMARY KEY NOT NULL,
	"krw_per_unit" numeric(18, 6) NOT NULL,
	"source" text NOT NULL,
	"as_of" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "invoices" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "invoices_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"number" text NOT NULL,
	"status" text NOT NULL,
	"currency" text NOT NULL,
	"total_cents" integer NOT NULL,
	"supply_cents" integer,
	"vat_cents" integer,
	"order_id" integer,
	"subscription_id" integer,
	"issued_at" timestamp with time zone DEFAULT now() NOT NULL,
	"due_at" timestamp with time zone,
	"paid_at" timestamp with time zone,
	CONSTRAINT "invoices_status" CHECK ("invoices"."status" IN ('draft', 'open', 'paid', 'void', 'uncollectible')),
	CONSTRAINT "invoices_currency" CHECK ("invoices"."currency" ~ '^[A-Z]{3}$'),
	CONSTRAINT "invoices_total" CHECK ("invoices"."total_cents" >= 0),
	CONSTRAINT "invoices_vat_split" CHECK (("invoices"."supply_cents" IS NULL) = ("invoices"."vat_cents" IS NULL) AND ("invoices"."supply_cents" IS NULL OR "invoices"."supply_cents" + "invoices"."vat_cents" = "invoices"."total_cents"))
);
--> statement-breakpoint
CREATE TABLE "order_items" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "order_items_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"order_id" integer NOT NULL,
	"product_id" integer NOT NULL,
	"product_name" text NOT NULL,
	"list_unit_price_cents" integer NOT NULL,
	"unit_price_cents" integer NOT NULL,
	"quantity" integer NOT NULL,
	"subtotal_cents" integer NOT NULL,
	"discount_total_cents" integer DEFAULT 0 NOT NULL,
	"total_cents" integer NOT NULL,
	CONSTRAINT "order_items_quantity" CHECK ("order_items"."quantity" BETWEEN 1 AND 1000),
	CONSTRAINT "order_items_totals" CHECK ("order_items"."subtotal_cents" = "order_items"."unit_price_cents" * "order_items"."quantity" AND "order_items"."total_cents" = "order_items"."subtotal_cents" - "order_items"."discount_total_cents" AND "order_items"."total_cents" >= 0)
);
--> statement-breakpoint
CREATE TABLE "orders" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "orders_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"number" text NOT NULL,
	"status" text NOT NULL,
	"currency" text NOT NULL,
	"subtotal_cents" integer NOT NULL,
	"discount_total_cents" integer DEFAULT 0 NOT NULL,
	"total_cents" integer NOT NULL,
	"supply_cents" integer,
	"vat_cents" integer,
	"payment_method" text NOT NULL,
	"payment_method_id" integer,
	"receipt_url" text,
	"subscription_id" integer,
	"paid_at" timestamp with time zone,
	"refunded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "orders_status" CHECK ("orders"."status" IN ('pending', 'paid', 'refunded', 'cancelled')),
	CONSTRAINT "orders_currency" CHECK ("orders"."currency" ~ '^[A-Z]{3}$'),
	CONSTRAINT "orders_totals" CHECK ("orders"."subtotal_cents" >= 0 AND "orders"."discount_total_cents" >= 0 AND "orders"."total_cents" = "orders"."subtotal_cents" - "orders"."discount_total_cents" AND "orders"."total_cents" >= 0),
	CONSTRAINT "orders_vat_split" CHECK (("orders"."supply_cents" IS NULL) = ("orders"."vat_cents" IS NULL) AND ("orders"."supply_cents" IS NULL OR "orders"."supply_cents" + "orders"."vat_cents" = "orders"."total_cents"))
);
--> statement-breakpoint
CREATE TABLE "payment_methods" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "payment_methods_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"brand" text NOT NULL,
	"last4" text NOT NULL,
	"exp_month" integer NOT NULL,
	"exp_year" integer NOT NULL,
	"is_default" boolean DEFAULT false NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "payment_methods_last4" CHECK ("payment_methods"."last4" ~ '^[0-9]{4}$'),
	CONSTRAINT "payment_methods_exp_month" CHECK ("payment_methods"."exp_month" BETWEEN 1 AND 12),
	CONSTRAINT "payment_methods_exp_year" CHECK ("payment_methods"."exp_year" BETWEEN 2000 AND 2200)
);
--> statement-breakpoint
CREATE TABLE "error_reports" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "error_reports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"fingerprint" text NOT NULL,
	"app_bundle_id" text NOT NULL,
	"app_version" text NOT NULL,
	"os_version" text,
	"device_model" text,
	"error_type" text NOT NULL,
	"error_message" text NOT NULL,
	"stack_trace" text,
	"context" jsonb,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "error_reports_type" CHECK ("error_reports"."error_type" IN ('crash', 'exception', 'warning'))
);
--> statement-breakpoint
CREATE TABLE "support_reports" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "support_reports_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"ticket_id" integer NOT NULL,
	"api_key_id" integer,
	"summary" text NOT NULL,
	"detail" text NOT NULL,
	"app_version" text,
	"macos_version" text,
	"device_id" text,
	"bundle_key" text,
	"bundle_size" bigint,
	"bundle_sha256" text,
	"bundle_filename" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "support_reports_bundle_complete" CHECK (("support_reports"."bundle_key" IS NULL) = ("support_reports"."bundle_size" IS NULL) AND ("support_reports"."bundle_key" IS NULL) = ("support_reports"."bundle_sha256" IS NULL))
);
--> statement-breakpoint
CREATE TABLE "support_tickets" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "support_tickets_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"account_id" integer NOT NULL,
	"kind" text NOT NULL,
	"summary" text NOT NULL,
	"dedup_key" text NOT NULL,
	"app_bundle_id" text,
	"status" text DEFAULT 'open' NOT NULL,
	"report_count" integer DEFAULT 1 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_reported_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "support_tickets_kind" CHECK ("support_tickets"."kind" IN ('general', 'app_report', 'refund_request')),
	CONSTRAINT "support_tickets_status" CHECK ("support_tickets"."status" IN ('open', 'closed'))
);
--> statement-breakpoint
ALTER TABLE "products" ADD COLUMN "lineage_id" integer;--> statement-breakpoint
ALTER TABLE "entitlements" ADD COLUMN "subscription_id" integer;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "cancel_at_period_end" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "order_id" integer;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "renewal_amount_cents" integer;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "renewal_currency" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "payment_method_id" integer;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "offer_code" text;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD COLUMN "offer_name" text;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "invoices" ADD CONSTRAINT "invoices_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_items" ADD CONSTRAINT "order_items_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "order_items" ADD CONSTRAINT "order_items_product_id_products_id_fk" FOREIGN KEY ("product_id") REFERENCES "public"."products"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_payment_method_id_payment_methods_id_fk" FOREIGN KEY ("payment_method_id") REFERENCES "public"."payment_methods"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "orders" ADD CONSTRAINT "orders_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "payment_methods" ADD CONSTRAINT "payment_methods_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_reports" ADD CONSTRAINT "support_reports_ticket_id_support_tickets_id_fk" FOREIGN KEY ("ticket_id") REFERENCES "public"."support_tickets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "support_tickets" ADD CONSTRAINT "support_tickets_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "lineages_slug_key" ON "lineages" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "invoices_number_key" ON "invoices" USING btree ("number");--> statement-breakpoint
CREATE INDEX "invoices_account_id_id_index" ON "invoices" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "invoices_account_id_status_id_index" ON "invoices" USING btree ("account_id","status","id");--> statement-breakpoint
CREATE INDEX "order_items_order_id_index" ON "order_items" USING btree ("order_id");--> statement-breakpoint
CREATE UNIQUE INDEX "orders_number_key" ON "orders" USING btree ("number");--> statement-breakpoint
CREATE INDEX "orders_account_id_id_index" ON "orders" USING btree ("account_id","id");--> statement-breakpoint
CREATE INDEX "payment_methods_account_id_index" ON "payment_methods" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "error_reports_fingerprint_created_at_index" ON "error_reports" USING btree ("fingerprint","created_at");--> statement-breakpoint
CREATE INDEX "error_reports_created_at_index" ON "error_reports" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "support_reports_ticket_id_index" ON "support_reports" USING btree ("ticket_id");--> statement-breakpoint
CREATE INDEX "support_tickets_account_id_dedup_key_last_reported_at_index" ON "support_tickets" USING btree ("account_id","dedup_key","last_reported_at");--> statement-breakpoint
ALTER TABLE "products" ADD CONSTRAINT "products_lineage_id_lineages_id_fk" FOREIGN KEY ("lineage_id") REFERENCES "public"."lineages"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entitlements" ADD CONSTRAINT "entitlements_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entitlements" ADD CONSTRAINT "entitlements_order_item_id_order_items_id_fk" FOREIGN KEY ("order_item_id") REFERENCES "public"."order_items"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "entitlements" ADD CONSTRAINT "entitlements_subscription_id_subscriptions_id_fk" FOREIGN KEY ("subscription_id") REFERENCES "public"."subscriptions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_order_id_orders_id_fk" FOREIGN KEY ("order_id") REFERENCES "public"."orders"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_payment_method_id_payment_methods_id_fk" FOREIGN KEY ("payment_method_id") REFERENCES "public"."payment_methods"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "products_lineage_id_index" ON "products" USING btree ("lineage_id");--> statement-breakpoint
CREATE INDEX "entitlements_order_id_index" ON "entitlements" USING btree ("order_id");--> statement-breakpoint
CREATE INDEX "entitlements_subscription_id_index" ON "entitlements" USING btree ("subscription_id");--> statement-breakpoint
ALTER TABLE "subscriptions" ADD CONSTRAINT "subscriptions_renewal" CHECK (("subscriptions"."renewal_amount_cents" IS NULL) = ("subscriptions"."renewal_currency" IS NULL) AND coalesce("subscriptions"."renewal_amount_cents", 0) >= 0);