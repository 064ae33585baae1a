import { emptyPayload } from "@shelf/api/catalog/delivery-data";
import type { DeliveryDependency, GrantType, Manual, ProductDelivery, ReleaseChannel } from "@shelf/db/schema";

/** The demo data set: plain data, so what the demo shows can be read (and changed) in one place. */

export const DEMO_EMAIL = "demo@shelf.test";
export const DEMO_NAME = "Demo User";
/**
 * The demo account's password, documented in the README and printed at start: the demo is for trying Shelf on one's
 * own machine. Set only while the account has no password, so a password changed on the pages is kept.
 */
export const DEMO_PASSWORD = "shelf-demo-password";
export const DEMO_KEY_NAME = "demo key";
/** The sample seller's store (the demo disclosure's website): each published product's Buy and Renew lead there. */
export const DEMO_STORE_URL = "https://shelf.test/store";

/** Categories as paths: "Parent/Child" nests a category under its parent. */
export const demoCategories = [
  "Developer Tools",
  "Developer Tools/Editor Extensions",
  "Developer Tools/Command Line",
  "Productivity",
  "Productivity/Notes & Writing",
  "Productivity/Focus",
  "AI Assistants",
  "AI Assistants/Agent Skills",
  "AI Assistants/MCP Servers",
  "Design",
] as const;
export type DemoCategory = (typeof demoCategories)[number];

export const demoTags = [
  { name: "macOS", type: "platform" },
  { name: "Windows", type: "platform" },
  { name: "Linux", type: "platform" },
  { name: "Claude Code", type: "host" },
  { name: "Codex", type: "host" },
  { name: "VS Code", type: "host" },
  { name: "Staff pick", type: "badge" },
  { name: "New", type: "badge" },
  { name: "Offline-first", type: null },
] as const;
export type DemoTag = (typeof demoTags)[number]["name"];

export type DemoRelease = {
  version: string;
  channel: ReleaseChannel;
  releasedAt: string;
  notes: string;
  notesKo?: string;
  artifactFormat: string;
};

export type DemoProduct = {
  slug: string;
  name: string;
  kind: "app" | "skill" | "extension" | "tool";
  description: string;
  unitPriceCents: number;
  listPriceCents: number | null;
  published: boolean;
  platforms: string[];
  runtime: string | null;
  delivery: ProductDelivery | null;
  manual: Manual | null;
  heroPath: string | null;
  heroAlt: string | null;
  thumbnailHtml?: string;
  detailHtml?: string;
  contentCss?: string;
  usagePath?: string;
  deviceLimit?: number;
  primaryCategory: DemoCategory;
  categories: DemoCategory[];
  tags: DemoTag[];
  releases: DemoRelease[];
  outputs?: { title: string; categoryLabel: string | null; summary: string; prompt: string; usageGuide?: string }[];
  installAssets?: { platform: string; label: string; path: string }[];
  mcp?: { name: string; tools: string[] };
  /**
   * The demo account's entitlement: `expired` access ended a month before the first seeding (hidden from the
   * library); `window-over` update support ended before the newest stable release (bundle unavailable).
   */
  entitlement?: { grantType: GrantType; state?: "expired" | "window-over" };
};

const payload = (values: Partial<ProductDelivery["payload"]>): ProductDelivery["payload"] => ({
  ...emptyPayload,
  ...values,
});

const dependency = (values: Partial<DeliveryDependency> & Pick<DeliveryDependency, "kind">): DeliveryDependency => ({
  name: null,
  version_constraint: null,
  architectures: [],
  bundle_id: null,
  ...values,
});

const git = dependency({ kind: "executable", name: "git", version_constraint: ">=2.30" });
const macos13 = dependency({ kind: "macos-version", version_constraint: ">=13.0" });
const universal = dependency({ kind: "architecture", architectures: ["arm64", "x86_64"] });

function macApp(name: string, bundleId: string, artifact: string): ProductDelivery {
  return {
    schema_version: 1,
    strategy: "macos-app",
    payload: payload({ artifact, app_path: `${name}.app`, bundle_id: bundleId }),
    targets: ["macos"],
    dependencies: [macos13, universal],
    launch: { kind: "open-app" },
    requires_confirmation: false,
    compatibility: true,
  };
}

function agentSkill(slug: string, artifact: string): ProductDelivery {
  return {
    schema_version: 1,
    strategy: "agent-skill",
    payload: payload({ artifact, root: `skills/${slug}`, skill_manifest: "SKILL.md" }),
    targets: ["claude-code", "codex"],
    dependencies: [],
    launch: { kind: "none" },
    requires_confirmation: false,
    compatibility: true,
  };
}

function binary(executable: string, artifact: string, dependencies: DeliveryDependency[]): ProductDelivery {
  return {
    schema_version: 1,
    strategy: "binary",
    payload: payload({ artifact, binary_path: `bin/${executable}`, executable_name: executable }),
    targets: ["codex", "claude-code"],
    dependencies,
    launch: { kind: "none" },
    requires_confirmation: false,
    compatibility: true,
  };
}

function manual(summary: string, install_steps: string[], extra: Partial<Manual> = {}): Manual {
  return { summary, requirements: [], install_steps, verification_steps: [], troubleshooting: [], ...extra };
}

export const demoProducts: DemoProduct[] = [
  {
    slug: "lumen-notes",
    name: "Lumen Notes",
    kind: "app",
    description:
      "A fast, local-first Markdown notebook for macOS with backlinks, daily notes and instant full-text search.",
    unitPriceCents: 2900,
    listPriceCents: 3900,
    published: true,
    platforms: ["macos"],
    runtime: "macOS 13 or later",
    delivery: macApp("Lumen Notes", "test.shelf.lumen-notes", "LumenNotes-2.4.1.dmg"),
    manual: manual(
      "Install the app, pick a folder for your notes and import from other apps if you like.",
      [
        "Open the downloaded LumenNotes.dmg and drag Lumen Notes to Applications.",
        "Start Lumen Notes and choose a folder for your notebook.",
        "Sign in with your Shelf account to activate your licence.",
        "Optional: import notes from Apple Notes or a Markdown folder under File > Import.",
      ],
      {
        requirements: ["macOS 13 Ventura or later", "200 MB of free disk space"],
        verification_steps: ["Press Cmd+K and search for a word from one of your notes."],
        troubleshooting: ["If macOS says the app is damaged, download it again: the download was interrupted."],
      },
    ),
    heroPath: "demo/heroes/lumen-notes.png",
    heroAlt: "Lumen Notes showing a daily note with backlinks in the sidebar",
    thumbnailHtml: '<img src="/demo/thumbs/lumen-notes.png" alt="Lumen Notes icon">',
    detailHtml:
      '<section class="lumen-notes-detail"><h2>Your notes, on your disk</h2><p>Plain Markdown files, indexed in milliseconds.</p></section>',
    contentCss:
      ".lumen-notes-detail h2 { color: #5b4bdb; font-weight: 650; }\n.lumen-notes-detail p { max-width: 38rem; line-height: 1.6; }",
    usagePath: "demo/usage/lumen-notes.md",
    deviceLimit: 3,
    primaryCategory: "Productivity/Notes & Writing",
    categories: ["Productivity/Notes & Writing", "Productivity"],
    tags: ["macOS", "Staff pick", "Offline-first"],
    releases: [
      {
        version: "2.4.0",
        channel: "stable",
        releasedAt: "2026-07-14T09:00:00Z",
        notes: "Backlinks panel, faster search index.",
        notesKo: "백링크 패널, 더 빠른 검색 색인.",
        artifactFormat: "dmg",
      },
      {
        version: "2.4.1",
        channel: "stable",
        releasedAt: "2026-08-02T09:00:00Z",
        notes: "Fixes a crash when importing very large notes.",
        notesKo: "매우 큰 노트를 가져올 때의 충돌을 고쳤습니다.",
        artifactFormat: "dmg",
      },
      {
        version: "2.5.0-beta.2",
        channel: "beta",
        releasedAt: "2026-10-20T09:00:00Z",
        notes: "Beta: canvas view and PDF annotations.",
        artifactFormat: "dmg",
      },
    ],
    outputs: [
      {
        title: "Daily note template",
        categoryLabel: "Template",
        summary: "A daily note with priorities, a log and links to yesterday.",
        prompt: "Create a daily note template with sections for top three priorities, a time log and open questions.",
        usageGuide: "Save it under Templates and set it as the daily note template in Settings.",
      },
    ],
    installAssets: [
      { platform: "macos", label: "Installer (Apple silicon and Intel)", path: "lumen-notes/LumenNotes-2.4.1.dmg" },
    ],
    entitlement: { grantType: "purchase" },
  },
  {
    slug: "release-notes-writer",
    name: "Release Notes Writer",
    kind: "skill",
    description:
      "An agent skill that turns merged pull requests into clear, grouped release notes written in your project's voice.",
    unitPriceCents: 1500,
    listPriceCents: null,
    published: true,
    platforms: ["macos", "linux", "windows"],
    runtime: "Claude Code or Codex",
    delivery: { ...agentSkill("release-notes-writer", "release-notes-writer-1.3.0.zip"), dependencies: [git] },
    manual: manual("The skill installs into your agent's skills folder.", [
      "Run `shelf install release-notes-writer` or unzip the download into your agent's skills folder.",
      "Restart Claude Code or Codex so it picks up the new skill.",
      "Ask your agent: “Write release notes since the last tag.”",
    ]),
    heroPath: "demo/heroes/release-notes-writer.png",
    heroAlt: "Generated release notes grouped into Features, Fixes and Chores",
    primaryCategory: "AI Assistants/Agent Skills",
    categories: ["AI Assistants/Agent Skills"],
    tags: ["Claude Code", "Codex", "New"],
    releases: [
      {
        version: "1.2.0",
        channel: "stable",
        releasedAt: "2026-05-11T12:00:00Z",
        notes: "Groups changes by conventional-commit type.",
        artifactFormat: "zip",
      },
      {
        version: "1.3.0",
        channel: "stable",
        releasedAt: "2026-09-01T12:00:00Z",
        notes: "Reads pull request descriptions, not only titles.",
        artifactFormat: "zip",
      },
      {
        version: "1.4.0-alpha.1",
        channel: "alpha",
        releasedAt: "2026-11-02T12:00:00Z",
        notes: "Alpha: writes a Korean translation alongside the English notes.",
        artifactFormat: "zip",
      },
    ],
    outputs: [
      {
        title: "Notes for the last release",
        categoryLabel: "Release",
        summary: "Release notes for everything merged since the latest tag.",
        prompt: "Use the release-notes-writer skill to draft release notes for all changes since the latest git tag.",
      },
      {
        title: "Changelog entry",
        categoryLabel: "Changelog",
        summary: "A CHANGELOG.md entry in Keep a Changelog format.",
        prompt: "Use the release-notes-writer skill to add an entry for the next version to CHANGELOG.md.",
      },
    ],
    entitlement: { grantType: "grant" },
  },
  {
    slug: "tidy-imports",
    name: "Tidy Imports",
    kind: "extension",
    description: "Sorts, groups and prunes imports in TypeScript, JavaScript and Python files every time you save.",
    unitPriceCents: 900,
    listPriceCents: 1200,
    published: true,
    platforms: ["macos", "linux", "windows"],
    runtime: "VS Code 1.90 or later",
    delivery: {
      schema_version: 1,
      strategy: "vscode-vsix",
      payload: payload({
        artifact: "tidy-imports-3.1.0.vsix",
        vsix_path: "tidy-imports-3.1.0.vsix",
        extension_id: "shelf-demo.tidy-imports",
      }),
      targets: ["vscode"],
      dependencies: [
        dependency({
          kind: "host-application",
          name: "Visual Studio Code",
          version_constraint: ">=1.90.0",
          bundle_id: "com.microsoft.VSCode",
        }),
      ],
      launch: { kind: "open-vscode" },
      requires_confirmation: false,
      compatibility: true,
    },
    manual: manual("Install the extension from the downloaded VSIX.", [
      "In VS Code, open the Extensions view and choose “Install from VSIX…”.",
      "Pick tidy-imports-3.1.0.vsix.",
      "Save any TypeScript file: its imports are sorted and grouped.",
    ]),
    heroPath: "demo/heroes/tidy-imports.png",
    heroAlt: "Imports before and after Tidy Imports ran",
    detailHtml:
      '<section class="tidy-imports-detail"><h2>Zero-config import order</h2><p>Reads your tsconfig paths and Biome or ESLint settings.</p></section>',
    contentCss:
      ".tidy-imports-detail { border-left: 4px solid #0e9f6e; padding-left: 1rem; }\n.tidy-imports-detail h2 { font-size: 1.25rem; }",
    primaryCategory: "Developer Tools/Editor Extensions",
    categories: ["Developer Tools/Editor Extensions"],
    tags: ["VS Code", "Staff pick"],
    releases: [
      {
        version: "3.0.2",
        channel: "stable",
        releasedAt: "2026-04-18T08:30:00Z",
        notes: "Keeps side-effect imports in place.",
        artifactFormat: "vsix",
      },
      {
        version: "3.1.0",
        channel: "stable",
        releasedAt: "2026-08-25T08:30:00Z",
        notes: "Python support and a setting for blank lines between groups.",
        artifactFormat: "vsix",
      },
      {
        version: "3.2.0-beta.1",
        channel: "beta",
        releasedAt: "2026-10-09T08:30:00Z",
        notes: "Beta: removes unused imports on save.",
        artifactFormat: "vsix",
      },
      {
        version: "3.2.0-dev.20261112",
        channel: "dev",
        releasedAt: "2026-11-12T08:30:00Z",
        notes: "Nightly build.",
        artifactFormat: "vsix",
      },
    ],
    installAssets: [{ platform: "any", label: "VS Code extension", path: "tidy-imports/tidy-imports-3.1.0.vsix" }],
    entitlement: { grantType: "purchase" },
  },
  {
    slug: "gitscope",
    name: "Gitscope",
    kind: "tool",
    description:
      "Ask questions about a repository's history from the terminal or from your AI assistant: who changed what, when, and why.",
    unitPriceCents: 1900,
    listPriceCents: null,
    published: true,
    platforms: ["macos", "linux", "windows"],
    runtime: "Git 2.30 or later",
    delivery: binary("gitscope", "gitscope-1.8.0.tar.gz", [git, universal]),
    manual: manual(
      "A single binary plus an MCP server for your assistant.",
      [
        "Run `shelf install gitscope`, or unpack the archive and put `gitscope` on your PATH.",
        "Run `gitscope doctor` inside a repository.",
        "Enable the Gitscope MCP server in your assistant's settings.",
      ],
      { verification_steps: ["`gitscope who-changed src/` lists authors."] },
    ),
    heroPath: "demo/heroes/gitscope.png",
    heroAlt: "Gitscope answering “why did this line change?” in a terminal",
    primaryCategory: "Developer Tools/Command Line",
    categories: ["Developer Tools/Command Line", "AI Assistants/MCP Servers"],
    tags: ["macOS", "Linux", "Windows", "Claude Code", "Codex"],
    releases: [
      {
        version: "1.7.3",
        channel: "stable",
        releasedAt: "2026-06-03T15:00:00Z",
        notes: "Faster blame on large files.",
        artifactFormat: "tar.gz",
      },
      {
        version: "1.8.0",
        channel: "stable",
        releasedAt: "2026-09-22T15:00:00Z",
        notes: "New MCP tool: explain_change.",
        artifactFormat: "tar.gz",
      },
      {
        version: "1.9.0-beta.1",
        channel: "beta",
        releasedAt: "2026-10-30T15:00:00Z",
        notes: "Beta: monorepo-aware ownership.",
        artifactFormat: "tar.gz",
      },
      {
        version: "1.9.0-dev.42",
        channel: "dev",
        releasedAt: "2026-11-15T15:00:00Z",
        notes: "Development build.",
        artifactFormat: "tar.gz",
      },
    ],
    outputs: [
      {
        title: "Weekly change digest",
        categoryLabel: "Report",
        summary: "What changed in the repository this week, by area.",
        prompt: "Use the gitscope tools to summarise this week's commits grouped by top-level folder.",
      },
    ],
    installAssets: [
      { platform: "macos", label: "macOS (universal)", path: "gitscope/gitscope-1.8.0-macos.tar.gz" },
      { platform: "linux", label: "Linux x86_64", path: "gitscope/gitscope-1.8.0-linux-x86_64.tar.gz" },
      { platform: "windows", label: "Windows x64", path: "gitscope/gitscope-1.8.0-windows-x64.zip" },
    ],
    mcp: { name: "gitscope", tools: ["search_commits", "explain_change", "blame_summary", "diff_stats"] },
    entitlement: { grantType: "purchase" },
  },
  {
    slug: "focus-dock",
    name: "Focus Dock",
    kind: "app",
    description: "A menu-bar timer that hides distracting apps during focus sessions and logs where your time went.",
    unitPriceCents: 1200,
    listPriceCents: null,
    published: true,
    platforms: ["macos"],
    runtime: "macOS 13 or later",
    delivery: macApp("Focus Dock", "test.shelf.focus-dock", "FocusDock-2.0.0.dmg"),
    manual: null,
    heroPath: "demo/heroes/focus-dock.png",
    heroAlt: "The Focus Dock menu with a 25-minute session running",
    primaryCategory: "Productivity/Focus",
    categories: ["Productivity/Focus"],
    tags: ["macOS"],
    releases: [
      {
        version: "1.4.0",
        channel: "stable",
        releasedAt: "2025-09-10T10:00:00Z",
        notes: "Session history export.",
        artifactFormat: "dmg",
      },
      {
        version: "2.0.0",
        channel: "stable",
        releasedAt: "2026-05-04T10:00:00Z",
        notes: "Redesigned for macOS 26, app blocking by schedule.",
        artifactFormat: "dmg",
      },
    ],
    entitlement: { grantType: "purchase", state: "window-over" },
  },
  {
    slug: "prompt-pantry",
    name: "Prompt Pantry",
    kind: "skill",
    description:
      "A curated, versioned library of over 200 prompts for code review, writing and research, kept in sync in a folder your tools can read.",
    unitPriceCents: 1000,
    listPriceCents: null,
    published: true,
    platforms: ["macos", "linux", "windows"],
    runtime: null,
    delivery: {
      schema_version: 1,
      strategy: "managed-directory",
      payload: payload({ artifact: "prompt-pantry-2026.10.0.zip", root: "prompt-pantry" }),
      targets: ["claude-code", "codex"],
      dependencies: [],
      launch: { kind: "reveal-managed-root" },
      requires_confirmation: true,
      compatibility: true,
    },
    manual: null,
    heroPath: "demo/heroes/prompt-pantry.png",
    heroAlt: "Prompt Pantry's shelves of prompts for code review, refactoring and tests",
    primaryCategory: "AI Assistants/Agent Skills",
    categories: ["AI Assistants/Agent Skills", "Productivity/Notes & Writing"],
    tags: ["Claude Code", "Codex"],
    releases: [
      {
        version: "2026.10.0",
        channel: "stable",
        releasedAt: "2026-10-01T00:00:00Z",
        notes: "October update: 18 new research prompts.",
        artifactFormat: "zip",
      },
    ],
    entitlement: { grantType: "grant" },
  },
  {
    slug: "palette-pro",
    name: "Palette Pro",
    kind: "extension",
    description: "Twelve carefully tuned colour themes for VS Code, each with a matching terminal palette.",
    unitPriceCents: 500,
    listPriceCents: null,
    published: true,
    platforms: ["macos", "linux", "windows"],
    runtime: "VS Code 1.85 or later",
    delivery: {
      schema_version: 1,
      strategy: "vscode-vsix",
      payload: payload({
        artifact: "palette-pro-1.0.0.vsix",
        vsix_path: "palette-pro-1.0.0.vsix",
        extension_id: "shelf-demo.palette-pro",
      }),
      targets: ["vscode"],
      dependencies: [],
      launch: { kind: "open-vscode" },
      requires_confirmation: false,
      compatibility: true,
    },
    manual: null,
    heroPath: "demo/heroes/palette-pro.png",
    heroAlt: "Four Palette Pro themes side by side",
    primaryCategory: "Design",
    categories: ["Design", "Developer Tools/Editor Extensions"],
    tags: ["VS Code"],
    releases: [
      {
        version: "1.0.0",
        channel: "stable",
        releasedAt: "2026-03-15T09:00:00Z",
        notes: "First release.",
        artifactFormat: "vsix",
      },
    ],
  },
  {
    slug: "logbook",
    name: "Logbook",
    kind: "tool",
    description: "A plain-text work journal for the terminal: log what you did, tag it, and get a weekly summary.",
    unitPriceCents: 800,
    listPriceCents: null,
    published: true,
    platforms: ["macos", "linux"],
    runtime: null,
    delivery: binary("logbook", "logbook-0.9.0.tar.gz", []),
    manual: null,
    heroPath: "demo/heroes/logbook.png",
    heroAlt: "Logbook recording a work note from the terminal",
    primaryCategory: "Developer Tools/Command Line",
    categories: ["Developer Tools/Command Line"],
    tags: ["macOS", "Linux", "Offline-first"],
    releases: [
      {
        version: "0.9.0",
        channel: "stable",
        releasedAt: "2026-02-20T18:00:00Z",
        notes: "Weekly summaries.",
        artifactFormat: "tar.gz",
      },
    ],
    entitlement: { grantType: "trial", state: "expired" },
  },
  {
    slug: "meeting-minutes",
    name: "Meeting Minutes",
    kind: "skill",
    description: "Turns a meeting transcript into decisions, action items with owners and a five-line summary.",
    unitPriceCents: 1200,
    listPriceCents: null,
    published: true,
    platforms: ["macos", "linux", "windows"],
    runtime: "Claude Code or Codex",
    delivery: agentSkill("meeting-minutes", "meeting-minutes-1.1.0.zip"),
    manual: manual("Add the skill, then hand your agent a transcript.", [
      "Run `shelf install meeting-minutes`.",
      "Restart your agent.",
      "Paste or attach a transcript and ask for minutes.",
    ]),
    heroPath: "demo/heroes/meeting-minutes.png",
    heroAlt: "Minutes with decisions and action items",
    primaryCategory: "AI Assistants/Agent Skills",
    categories: ["AI Assistants/Agent Skills", "Productivity/Notes & Writing"],
    tags: ["Claude Code", "Codex"],
    releases: [
      {
        version: "1.0.0",
        channel: "stable",
        releasedAt: "2026-04-01T07:00:00Z",
        notes: "First release.",
        artifactFormat: "zip",
      },
      {
        version: "1.1.0",
        channel: "stable",
        releasedAt: "2026-07-21T07:00:00Z",
        notes: "Detects owners from speaker names.",
        artifactFormat: "zip",
      },
    ],
    outputs: [
      {
        title: "Minutes from a transcript",
        categoryLabel: "Meeting",
        summary: "Decisions, action items and a short summary.",
        prompt: "Use the meeting-minutes skill on the attached transcript.",
      },
    ],
    entitlement: { grantType: "purchase" },
  },
  {
    slug: "snapshot-diff",
    name: "Snapshot Diff",
    kind: "tool",
    description:
      "Visual diffs for UI screenshots in CI: flags pixel changes above a threshold and writes an HTML report.",
    unitPriceCents: 2400,
    listPriceCents: 2900,
    published: true,
    platforms: ["macos", "linux"],
    runtime: null,
    delivery: binary("snapshot-diff", "snapshot-diff-2.2.0.tar.gz", [universal]),
    manual: null,
    heroPath: "demo/heroes/snapshot-diff.png",
    heroAlt: "An HTML report highlighting a changed button",
    primaryCategory: "Developer Tools/Command Line",
    categories: ["Developer Tools/Command Line", "Design"],
    tags: ["macOS", "Linux"],
    releases: [
      {
        version: "2.2.0",
        channel: "stable",
        releasedAt: "2026-06-30T11:00:00Z",
        notes: "Anti-aliasing tolerance.",
        artifactFormat: "tar.gz",
      },
      {
        version: "2.3.0-beta.1",
        channel: "beta",
        releasedAt: "2026-10-14T11:00:00Z",
        notes: "Beta: dark-mode pairs.",
        artifactFormat: "tar.gz",
      },
    ],
  },
  {
    slug: "atlas-design-kit",
    name: "Atlas Design Kit",
    kind: "app",
    description: "Early-access design-system toolkit for beta testers: tokens, components and a two-way Figma sync.",
    unitPriceCents: 4900,
    listPriceCents: null,
    published: false,
    platforms: ["macos"],
    runtime: "macOS 14 or later",
    delivery: macApp("Atlas Design Kit", "test.shelf.atlas-design-kit", "AtlasDesignKit-0.3.0-alpha.2.dmg"),
    manual: null,
    heroPath: "demo/heroes/atlas-design-kit.png",
    heroAlt: "Atlas Design Kit's design tokens and components, ready for Figma",
    primaryCategory: "Design",
    categories: ["Design"],
    tags: ["macOS", "New"],
    releases: [
      {
        version: "0.3.0-alpha.2",
        channel: "alpha",
        releasedAt: "2026-10-27T13:00:00Z",
        notes: "Alpha: token export to CSS variables.",
        artifactFormat: "dmg",
      },
      {
        version: "0.3.0-dev.7",
        channel: "dev",
        releasedAt: "2026-11-18T13:00:00Z",
        notes: "Development build.",
        artifactFormat: "dmg",
      },
    ],
    entitlement: { grantType: "grant" },
  },
  {
    slug: "clipboard-relay",
    name: "Clipboard Relay",
    kind: "app",
    description: "Copy on your Mac, paste on your PC: an end-to-end encrypted clipboard shared across your devices.",
    unitPriceCents: 1400,
    listPriceCents: null,
    published: true,
    platforms: ["macos", "windows"],
    runtime: null,
    delivery: {
      schema_version: 1,
      strategy: "manual",
      payload: payload({}),
      targets: [],
      dependencies: [],
      launch: { kind: "none" },
      requires_confirmation: false,
      compatibility: true,
    },
    manual: manual(
      "Install on each device and pair them with a one-time code.",
      [
        "Download the installer for your system below and run it.",
        "Sign in with your Shelf account on the first device.",
        "On the second device choose “Pair” and enter the six-digit code shown on the first.",
        "Copy some text on one device and paste it on the other.",
        "Optional: turn on “Start at login” in Preferences.",
      ],
      {
        requirements: ["macOS 13 or Windows 11", "Both devices online"],
        troubleshooting: ["Pairing fails behind some corporate firewalls: allow outbound port 443."],
      },
    ),
    heroPath: "demo/heroes/clipboard-relay.png",
    heroAlt: "A Mac and a PC sharing the same clipboard",
    deviceLimit: 3,
    primaryCategory: "Productivity",
    categories: ["Productivity"],
    tags: ["macOS", "Windows"],
    releases: [
      {
        version: "4.2.0",
        channel: "stable",
        releasedAt: "2026-08-12T06:00:00Z",
        notes: "Images and files up to 25 MB.",
        artifactFormat: "zip",
      },
    ],
    installAssets: [
      { platform: "macos", label: "macOS installer", path: "clipboard-relay/ClipboardRelay-4.2.0.dmg" },
      { platform: "windows", label: "Windows installer", path: "clipboard-relay/ClipboardRelaySetup-4.2.0.exe" },
    ],
    entitlement: { grantType: "purchase" },
  },
];

/** When update support ended for the `window-over` entitlement: before Focus Dock 2.0.0. */
export const DEMO_UPDATE_WINDOW_END = "2025-12-31T23:59:59Z";
export const DEMO_UPDATE_WINDOW_GRANTED = "2025-09-12T08:00:00Z";

/** Every account ability: the demo key tries the whole API, licensing and the device endpoints included. */
export const demoKeyAbilities = [
  "products.read",
  "mcp.read",
  "device.install",
  "orders.read",
  "subscriptions.read",
  "setup-progress.write",
  "device.entitlements",
  "device.activate",
  "device.usage",
  "support.report",
] as const;

/** The demo account's all-access pass: a year from the first seed, with a week of grace. */
export const DEMO_PASS = {
  tier: "all-access",
  features: ["sync", "priority-support"],
  allowedApps: ["*"],
  graceDays: 7,
  years: 1,
} as const;

/** Product families of the demo, public at /api/lineages. */
export const demoLineages = [
  {
    slug: "writing",
    name: "Writing",
    description: "Notes, minutes and release notes that write themselves.",
    products: ["lumen-notes", "meeting-minutes", "release-notes-writer"],
  },
  {
    slug: "developer-tools",
    name: "Developer tools",
    description: "Small sharp tools for code review and repositories.",
    products: ["tidy-imports", "gitscope", "snapshot-diff"],
  },
] as const;
