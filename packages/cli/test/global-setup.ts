import { build } from "../build.mjs";

/** The tests run the real `shelf` binary: bundle it once, before any of them. */
export default async function setup() {
  await build();
}
