import { z } from "zod";

/** How a product is delivered and installed by hand: the products' detail and the library both answer them. */
export const ProductDeliveryData = z
  .object({
    schema_version: z.number().int(),
    strategy: z.enum(["agent-skill", "vscode-vsix", "macos-app", "binary", "managed-directory", "manual"]),
    payload: z.object({
      artifact: z.string().nullable(),
      root: z.string().nullable(),
      skill_manifest: z.string().nullable(),
      vsix_path: z.string().nullable(),
      extension_id: z.string().nullable(),
      app_path: z.string().nullable(),
      bundle_id: z.string().nullable(),
      binary_path: z.string().nullable(),
      executable_name: z.string().nullable(),
    }),
    targets: z.array(z.enum(["codex", "claude-code", "vscode", "macos"])),
    dependencies: z.array(
      z.object({
        kind: z.enum(["executable", "macos-version", "architecture", "host-application"]),
        name: z.string().nullable(),
        version_constraint: z.string().nullable(),
        architectures: z.array(z.string()),
        bundle_id: z.string().nullable(),
      }),
    ),
    launch: z.object({ kind: z.enum(["open-app", "reveal-managed-root", "open-vscode", "none"]) }),
    requires_confirmation: z.boolean(),
    compatibility: z.boolean(),
  })
  .meta({ id: "ProductDeliveryData" });
export type ProductDeliveryData = z.infer<typeof ProductDeliveryData>;

export const ProductManualData = z
  .object({
    summary: z.string().nullable(),
    requirements: z.array(z.string()),
    install_steps: z.array(z.string()),
    verification_steps: z.array(z.string()),
    troubleshooting: z.array(z.string()),
  })
  .meta({ id: "ProductManualData" });
