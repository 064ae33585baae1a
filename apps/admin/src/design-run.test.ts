import { designCollect, designTokens } from "@shelf/api";
import { describe, expect, it } from "vitest";
import { withAdminCli } from "./cli-harness";

const { testDb, admin, adminJson, expectFailure } = withAdminCli("shelf-admin-design-run-");

async function collector(name: string) {
  const { record } = await designTokens.createDesignToken(testDb.db, { name, roles: ["collect"] }, "shelf");
  return { tokenId: record.id, name };
}

const spec = { apps: null, viewports: ["desktop" as const], langs: ["en" as const] };

describe("design-run commands", () => {
  it("list runs newest first with status, opener, counts and lease end, and fail a stuck run to free the lock", async () => {
    const first = await collector("nightly-collector");
    const done = await designCollect.openRun(testDb.db, first, spec);
    await designCollect.failRun(testDb.db, first, done.id, "The browser crashed.");
    const stuck = await designCollect.openRun(testDb.db, first, spec);

    const { runs } = await adminJson("design-run:list");
    expect(runs.map((run: { id: number }) => run.id)).toEqual([stuck.id, done.id]);
    expect(runs[0]).toMatchObject({
      id: stuck.id,
      status: "open",
      opener: "nightly-collector",
      counts: { captures: 0, assets: 0 },
      lease_expires_at: stuck.lease_expires_at,
      created_at: stuck.created_at,
    });
    expect(runs[1]).toMatchObject({ status: "failed", error: "The browser crashed." });
    const text = (await admin("design-run:list")).stdout;
    expect(text).toContain(`open, lease until ${stuck.lease_expires_at}`);
    expect(text).toContain("nightly-collector");
    expect(text).toContain("failed: The browser crashed.");
    expect((await adminJson("design-run:list", "--limit", "1")).runs).toHaveLength(1);

    const other = await collector("second-collector");
    await expect(designCollect.openRun(testDb.db, other, spec)).rejects.toMatchObject({ code: "collection_locked" });
    const ended = await adminJson("design-run:fail", "--id", String(stuck.id), "--reason", "collector hung");
    expect(ended.run).toMatchObject({ id: stuck.id, status: "failed", error: "collector hung" });
    expect((await designCollect.openRun(testDb.db, other, spec)).status).toBe("open");

    await expectFailure(["design-run:fail", "--id", String(stuck.id)], /not open/);
    await expectFailure(["design-run:fail", "--id", "2000000000"], /No collect run/);
    await expectFailure(["design-run:fail"], /--id is required/);
    await expectFailure(["design-run:list", "--limit", "0"], /--limit must be a whole number of at least 1/);
  });
});
