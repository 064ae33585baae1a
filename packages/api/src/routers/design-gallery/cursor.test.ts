import { createTestDatabase, type TestDatabase } from "@shelf/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Delivery } from "../../delivery";
import { ScreensPage } from "../../schemas/gallery-screens";
import { contractMismatch, createTestDelivery } from "../../testing";
import { galleryApi, randomScreens, seedRun } from "../../testing/gallery";

/*
 * The screens list paged by cursor over HTTP: `limit` at a time, each page after the last screen shown under the
 * query the cursor carries, so screens added between two pages neither shift nor repeat what is left.
 */

let testDb: TestDatabase;
let delivery: Delivery;
let request: ReturnType<typeof galleryApi>["request"];

beforeAll(async () => {
  testDb = await createTestDatabase();
  delivery = await createTestDelivery();
  request = galleryApi(testDb.db, delivery).request;
  await seedRun(testDb.db, delivery.store, randomScreens(7, 40, 2));
}, 60_000);
afterAll(() => testDb.drop());

type Page = { items: { id: number }[]; next_cursor: string | null; total: number; page: number; page_size: number };

async function list(query: string): Promise<Page> {
  const answer = await request(`/api/v1/screens?facets=false&${query}`);
  expect(answer.status, answer.text).toBe(200);
  expect(contractMismatch(ScreensPage, answer.text)).toBeNull();
  return answer.body;
}

const ids = (page: Page) => page.items.map((item) => item.id);

describe("the screens list by cursor", () => {
  it("pages `limit` screens at a time in the order of the grid, whatever sort", async () => {
    for (const sort of ["newest", "oldest", "name"]) {
      const whole = await list(`sort=${sort}&limit=100`);
      expect(whole.next_cursor).toBeNull();
      const seen: number[] = [];
      let page = await list(`sort=${sort}&limit=7`);
      expect(page).toMatchObject({ page: 1, page_size: 7, total: whole.total });
      for (;;) {
        seen.push(...ids(page));
        if (!page.next_cursor) break;
        page = await list(`limit=7&cursor=${page.next_cursor}`);
      }
      expect(seen).toEqual(ids(whole));
    }
  });

  it("continues after the last screen shown when screens are added between two pages", async () => {
    const first = await list("limit=10");
    const later = randomScreens(8, 3, 1).map((screen) => ({ ...screen, app: "later" }));
    await seedRun(testDb.db, delivery.store, later, { start: new Date(Date.UTC(2030, 0, 1)) });
    const second = await list(`limit=10&cursor=${first.next_cursor}`);
    // The new screens are the newest: they come first in a new list, never inside this one's next page.
    const now = await list("limit=13");
    expect(ids(now).slice(3)).toEqual(ids(first).concat(ids(second)).slice(0, 10));
    expect(ids(second).some((id) => ids(first).includes(id))).toBe(false);
    expect(ids(second)).toEqual(ids(await list("limit=30")).slice(13, 23));
  });

  it("carries its query: alone it keeps the filters, with other filters or a page it is 422", async () => {
    const filtered = await list("viewport=mobile&sort=name&limit=3");
    expect(filtered.next_cursor).toEqual(expect.any(String));
    const alone = await list(`limit=3&cursor=${filtered.next_cursor}`);
    const again = await list(`viewport=mobile&sort=name&limit=3&cursor=${filtered.next_cursor}`);
    expect(ids(alone)).toEqual(ids(again));
    expect(ids(alone)).toEqual(ids(await list("viewport=mobile&sort=name&limit=6")).slice(3));

    const refusals: [string, string][] = [
      [`viewport=desktop&cursor=${filtered.next_cursor}`, "belongs to another query"],
      [`sort=newest&cursor=${filtered.next_cursor}`, "belongs to another query"],
      [`page=2&cursor=${filtered.next_cursor}`, "is not used with cursor"],
      [`cursor=${filtered.next_cursor?.slice(0, -2)}`, "must be a next_cursor"],
      [`cursor=${Buffer.from('{"query":{},"after":1,"page":1}').toString("base64url")}`, "must be a next_cursor"],
      [`cursor=${Buffer.from('{"query":{},"after":6732830127,"page":2}').toString("base64url")}`, "must be a next"],
      ["cursor=%E2%9C%93", "must be a next_cursor"],
      ["limit=101", "at most 100"],
      ["limit=0", "at least 1"],
    ];
    for (const [query, message] of refusals) {
      const answer = await request(`/api/v1/screens?${query}`);
      expect(answer.status, query).toBe(422);
      expect(JSON.stringify(answer.body.errors), query).toContain(message);
    }
  });
});
