import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["packages/api/src/testing/log-scan.ts", "packages/db/src/testing/global-setup.ts"],
    // Speed is measured by the benchmarks, not here: the limit only catches a hang. Tests that drive the CLI, a
    // browser or several servers take tens of seconds on a loaded CI machine (one took 30 s where it took 26 s before).
    testTimeout: 120_000,
    hookTimeout: 180_000,
    projects: [
      {
        extends: true,
        test: {
          name: "packages",
          include: ["packages/**/*.test.ts", "apps/admin/**/*.test.ts", "tooling/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "tooling/design-collect/test/**", "packages/cli/**"],
        },
      },
      {
        extends: true,
        test: {
          // The command-line client's tests run the built `shelf` against servers of their own: once, not on both
          // databases like the packages project (the client never touches a database).
          name: "cli",
          include: ["packages/cli/**/*.test.ts"],
          // Sign-in through the web app's real device page needs its production build: that file runs in `web`.
          exclude: [...configDefaults.exclude, "packages/cli/test/browser/**"],
          globalSetup: ["packages/cli/test/global-setup.ts"],
        },
      },
      {
        extends: true,
        test: {
          name: "web",
          // The collect agent and `shelf login` (approved on the device page) drive Chromium over the same build.
          include: [
            "apps/web/test/**/*.test.ts",
            "tooling/design-collect/test/**/*.test.ts",
            "packages/cli/test/browser/**/*.test.ts",
          ],
          globalSetup: ["apps/web/test/global-setup.ts"],
          // One production server is shared by these files; run them one after another.
          fileParallelism: false,
        },
      },
      {
        extends: true,
        test: {
          name: "design",
          include: ["apps/design/test/**/*.test.ts"],
          globalSetup: ["apps/design/test/global-setup.ts"],
          // Like the web project: its servers and the root start run one file after another; and after the other
          // projects, so that the root start's two apps and database do not add to the web project's load.
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      {
        extends: true,
        test: {
          // Several instances of both apps behind HAProxy (deploy/): run once, on the run's database server, after
          // every other project, so that its dozen processes do not add to their load.
          name: "cluster",
          include: ["deploy/test/**/*.test.ts"],
          fileParallelism: false,
          sequence: { groupOrder: 2 },
        },
      },
    ],
  },
});
