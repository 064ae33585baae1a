import { describe, expect, it } from "vitest";
import { ProductSetupProgressData } from "../../schemas/setup-progress";
import { createAccountWithKey, createProduct, grantEntitlement } from "../../testing";
import { contractMismatch } from "../../testing/contract";
import { withApiSuite } from "../../testing/suite";
import { updateProduct } from "../products/admin-service";

const { testDb, request } = withApiSuite();

const manual = (steps: number) => ({
  summary: null,
  requirements: [],
  install_steps: Array.from({ length: steps }, (_, index) => `Step ${index + 1}`),
  verification_steps: [],
  troubleshooting: [],
});

async function buyer(steps: number) {
  const { account, key } = await createAccountWithKey(testDb.db);
  const product = await createProduct(testDb.db, { manual: manual(steps) });
  await grantEntitlement(testDb.db, account.id, product.id);
  const path = `/api/products/${product.id}/setup-progress`;
  const put = (body: unknown) => request(path, { method: "PUT", key, body });
  return { key, product, path, put, get: () => request(path, { key }) };
}

describe("setup progress", () => {
  it("records steps as changes, derives count, percent and completion, and the library agrees", async () => {
    const { key, product, put, get } = await buyer(4);
    const empty = await get();
    expect(empty.status).toBe(200);
    expect(contractMismatch(ProductSetupProgressData, empty.text)).toBeNull();
    expect(empty.body).toEqual({
      completed_step_indexes: [],
      completed_count: 0,
      total_count: 4,
      progress_percent: 0,
      completed: false,
      completed_at: null,
    });
    const some = await put({ completed_step_indexes: [2, 0, 2] });
    expect(some.status).toBe(200);
    expect(contractMismatch(ProductSetupProgressData, some.text)).toBeNull();
    expect(some.body).toMatchObject({ completed_step_indexes: [0, 2], completed_count: 2, progress_percent: 50 });
    expect((await put({ completed_step_indexes: [1] })).body.completed_step_indexes).toEqual([0, 1, 2]);

    const done = await put({ completed_step_indexes: [3] });
    expect(done.body).toMatchObject({ completed: true, progress_percent: 100, completed_count: 4 });
    const completedAt = done.body.completed_at;
    expect(Date.now() - Date.parse(completedAt)).toBeLessThan(60_000);
    // Recording a step again keeps the time it was first complete; undoing one clears it.
    expect((await put({ completed_step_indexes: [3] })).body.completed_at).toBe(completedAt);
    const undone = await put({ uncompleted_step_indexes: [1] });
    expect(undone.body).toMatchObject({ completed_step_indexes: [0, 2, 3], completed: false, completed_at: null });
    expect((await put({})).body.completed_step_indexes).toEqual([0, 2, 3]);
    expect((await get()).body).toEqual(undone.body);

    const library = await request("/api/library", { key });
    const item = library.body.items.find((entry: { product: { id: number } }) => entry.product.id === product.id);
    expect(item.setup_progress).toEqual(undone.body);
  });

  it("refuses a step the manual does not have with a 422 and keeps what was stored", async () => {
    const { put, get } = await buyer(3);
    await put({ completed_step_indexes: [1] });
    for (const [body, field] of [
      [{ completed_step_indexes: [0, 3] }, "completed_step_indexes.1"],
      [{ uncompleted_step_indexes: [7] }, "uncompleted_step_indexes.0"],
      [{ completed_step_indexes: [-1] }, "completed_step_indexes.0"],
      [{ completed_step_indexes: [1.5] }, "completed_step_indexes.0"],
      [{ completed_step_indexes: "1" }, "completed_step_indexes"],
      [{ completed_step_indexes: [0], uncompleted_step_indexes: [0] }, "uncompleted_step_indexes.0"],
    ] as const) {
      const response = await put(body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(Object.keys(response.body.errors), JSON.stringify(body)).toContain(field);
    }
    expect((await get()).body.completed_step_indexes).toEqual([1]);
    const none = await buyer(0);
    const refused = await none.put({ completed_step_indexes: [0] });
    expect(refused.status).toBe(422);
    expect(refused.body.errors["completed_step_indexes.0"]).toEqual([
      "is not a step: this product's manual has no steps",
    ]);
  });

  it("never loses a step when 20 devices record different steps at the same time", async () => {
    const { put, get } = await buyer(20);
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => put({ completed_step_indexes: [index] })),
    );
    expect(responses.map((response) => response.status)).toEqual(Array(20).fill(200));
    const after = await get();
    expect(after.body.completed_step_indexes).toEqual(Array.from({ length: 20 }, (_, index) => index));
    expect(after.body.completed).toBe(true);
  });

  it("counts only the steps the manual still has when it shrinks", async () => {
    const { product, put, get } = await buyer(4);
    await put({ completed_step_indexes: [0, 3] });
    await updateProduct(testDb.db, { id: product.id, manualSteps: ["Only step", "Second"] });
    expect((await get()).body).toMatchObject({ completed_step_indexes: [0], total_count: 2, progress_percent: 50 });
    expect((await put({ completed_step_indexes: [1] })).body).toMatchObject({ completed: true, completed_count: 2 });
  });
});
