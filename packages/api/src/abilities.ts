/** Abilities an account API key can hold (contract section 5.6). */
export const accountAbilities = [
  "products.read",
  "orders.read",
  "subscriptions.read",
  "mcp.read",
  "setup-progress.write",
  "device.install",
  "device.entitlements",
  "device.activate",
  "device.usage",
  "support.report",
] as const;
export type AccountAbility = (typeof accountAbilities)[number];

/** Operator abilities: they may be stored on a key, but do nothing on an ordinary account's key. */
export const operatorAbilities = ["support.staff", "commerce.staff", "design.staff"] as const;

export const allAbilities = [...accountAbilities, ...operatorAbilities] as const;
export type Ability = (typeof allAbilities)[number];

/** What each kind of key holds from the start (contract section 5.7). */
export const defaultAbilities = {
  created: ["products.read", "mcp.read", "device.install"],
  device: [
    "products.read",
    "device.entitlements",
    "device.activate",
    "device.install",
    "device.usage",
    "support.report",
  ],
} as const satisfies Record<"created" | "device", readonly AccountAbility[]>;
