CREATE TABLE "gallery_generation" (
	"one" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"generation" bigint NOT NULL,
	CONSTRAINT "gallery_generation_one_row" CHECK ("gallery_generation"."one")
);
--> statement-breakpoint
-- The gallery as it stands is the first generation.
INSERT INTO "gallery_generation" ("one", "generation") VALUES (true, 1);
