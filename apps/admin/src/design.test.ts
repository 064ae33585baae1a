import { designDocs, resolveDesignToken } from "@shelf/api";
import { describe, expect, it } from "vitest";
import { withAdminCli } from "./cli-harness";

const { testDb, admin, adminJson, expectFailure } = withAdminCli("shelf-admin-design-");

describe("design-token commands", () => {
  it("create a token shown once with its roles, list it without the token, and revoke it", async () => {
    const created = await adminJson("design-token:create", "--name", "collector", "--roles", "read,collect,read");
    expect(created).toEqual({
      id: expect.any(Number),
      token: expect.stringMatching(/^shelf_design_[1-9A-HJ-NP-Za-km-z]{32}$/),
      name: "collector",
      roles: ["collect", "read"],
      expires_at: null,
    });
    expect((await resolveDesignToken(testDb.db, created.token)).status).toBe("valid");

    const listed = await admin("design-token:list");
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(created.token.slice(0, 14));
    expect(listed.stdout).not.toContain(created.token);
    expect((await adminJson("design-token:list")).tokens).toContainEqual(
      expect.objectContaining({ id: created.id, roles: ["collect", "read"], revoked_at: null }),
    );

    const revoked = await adminJson("design-token:revoke", "--id", String(created.id));
    expect(revoked.revoked_at).toEqual(expect.any(String));
    expect(await resolveDesignToken(testDb.db, created.token)).toEqual({ status: "invalid" });
    await expectFailure(["design-token:revoke", "--id", String(created.id)], /No live design token/);
  });

  it("explains bad roles, a past expiry and a missing name, and creates nothing", async () => {
    const before = (await adminJson("design-token:list")).tokens.length;
    await expectFailure(["design-token:create", "--name", "x", "--roles", "read,admin"], /unknown role admin/);
    await expectFailure(["design-token:create", "--name", "x"], /--roles is required/);
    await expectFailure(["design-token:create", "--roles", "read"], /--name/);
    await expectFailure(
      ["design-token:create", "--name", "x", "--roles", "read", "--expires", "2001-01-01T00:00:00Z"],
      /must be in the future/,
    );
    expect((await adminJson("design-token:list")).tokens).toHaveLength(before);
  });
});

describe("design-doc:list", () => {
  it("lists documents with their current, latest and pending versions", async () => {
    const writer = await adminJson("design-token:create", "--name", "writer", "--roles", "write");
    const reviewer = await adminJson("design-token:create", "--name", "reviewer", "--roles", "review");
    await designDocs.writeVersion(
      testDb.db,
      { tokenId: writer.id, name: "writer" },
      { slug: "spacing", body: "# Spacing", base_version: 0 },
    );
    await designDocs.submitVersion(testDb.db, "spacing", 1);
    await designDocs.reviewVersion(
      testDb.db,
      { tokenId: reviewer.id, name: "reviewer" },
      { slug: "spacing", version: 1, verdict: "approved", reason: "Good." },
    );
    await designDocs.writeVersion(
      testDb.db,
      { tokenId: writer.id, name: "writer" },
      { slug: "spacing", body: "# Spacing v2", base_version: 1 },
    );
    await designDocs.submitVersion(testDb.db, "spacing", 2);
    const { documents } = await adminJson("design-doc:list");
    expect(documents).toEqual([
      expect.objectContaining({
        slug: "spacing",
        title: "Spacing v2",
        current_version: 1,
        latest_version: 2,
        pending_versions: [2],
      }),
    ]);
    expect((await admin("design-doc:list")).stdout).toContain("spacing");
  });
});
