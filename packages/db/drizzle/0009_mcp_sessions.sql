CREATE TABLE "mcp_sessions" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "mcp_sessions_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"id_hash" text NOT NULL,
	"account_id" integer NOT NULL,
	"credential" text NOT NULL,
	"protocol_version" text NOT NULL,
	"client_name" text,
	"client_version" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"ended_at" timestamp with time zone,
	CONSTRAINT "mcp_sessions_id_hash_hex" CHECK ("mcp_sessions"."id_hash" ~ '^[0-9a-f]{64}$')
);
--> statement-breakpoint
ALTER TABLE "mcp_sessions" ADD CONSTRAINT "mcp_sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "mcp_sessions_id_hash_key" ON "mcp_sessions" USING btree ("id_hash");--> statement-breakpoint
CREATE INDEX "mcp_sessions_account_id_index" ON "mcp_sessions" USING btree ("account_id");