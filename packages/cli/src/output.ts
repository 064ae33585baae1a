import { z } from "zod";

/**
 * The documented shapes of `--json`: each command prints exactly one JSON document on stdout, one of these (or
 * `ErrorOutput` when it fails). The tests validate every document they see against them.
 */
export const ErrorOutput = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    hint: z.string().nullable(),
    exit_code: z.number().int(),
    details: z.record(z.string(), z.unknown()).nullable(),
  }),
});

const KeyStorage = z.enum(["keychain", "file"]);

export const LoginOutput = z.object({
  base_url: z.string(),
  account: z.object({ id: z.number().int(), email: z.string() }),
  key_prefix: z.string(),
  storage: KeyStorage,
  /** The 0600 file when `storage` is `file`. */
  credentials_file: z.string().nullable(),
});

export const LogoutOutput = z.object({
  base_url: z.string(),
  revoked_on_server: z.boolean(),
  deleted_locally: z.boolean(),
  warning: z.string().nullable(),
});

export const WhoamiOutput = z.object({
  base_url: z.string(),
  account: z.object({ id: z.number().int(), email: z.string().nullable(), name: z.string().nullable() }),
  key_source: z.enum(["environment", "keychain", "file"]),
  device: z.object({ id: z.number().int().nullable(), name: z.string().nullable() }),
});

export const AuthStatusOutput = z.object({
  base_url: z.string(),
  signed_in: z.boolean(),
  key_source: z.enum(["environment", "keychain", "file"]).nullable(),
  /** The 0600 file when the key is kept there. */
  credentials_file: z.string().nullable(),
  key_prefix: z.string().nullable(),
  account_email: z.string().nullable(),
  /** Whether the service accepts the key right now; null when it could not be asked. */
  valid: z.boolean().nullable(),
});

const ProductRef = z.object({ id: z.number().int(), name: z.string() });

export const LibraryOutput = z.object({
  items: z.array(
    ProductRef.extend({
      type: z.string(),
      access_source: z.string(),
      strategy: z.string(),
      setup: z.object({ completed_count: z.number().int(), total_count: z.number().int() }),
      installed_version: z.string().nullable(),
    }),
  ),
});

export const ProductsOutput = z.object({
  products: z.array(
    ProductRef.extend({
      description: z.string().nullable(),
      entitled: z.boolean(),
      unit_price_cents: z.number().int(),
      currency: z.string(),
    }),
  ),
});

export const ReleasesOutput = z.object({
  product: ProductRef,
  releases: z.array(
    z.object({
      id: z.number().int(),
      version: z.string(),
      notes: z.string().nullable(),
      released_at: z.string(),
    }),
  ),
});

export const UpdatesOutput = z.object({
  updates: z.array(
    ProductRef.extend({
      installed_version: z.string(),
      current_version: z.string(),
      update_available: z.boolean(),
      download_allowed: z.boolean(),
    }),
  ),
});

export const InstallOutput = z.object({
  product: ProductRef,
  version: z.string(),
  channel: z.string().nullable(),
  strategy: z.string(),
  sha256: z.string(),
  size: z.number().int(),
  /** Whether a `.partial` file from an earlier, cut download was continued. */
  resumed: z.boolean(),
  /** Signed links renewed from a new install plan because one expired during the download. */
  links_renewed: z.number().int(),
  /** The downloaded file, verified. */
  file: z.string(),
  /** Where the product was installed (null for `manual`: the file is all there is). */
  installed_to: z.string().nullable(),
  /** Extra places linked to the install (an agent skill's targets). */
  links: z.array(z.string()),
  recorded: z.boolean(),
  manual_steps: z.array(z.string()),
});

export const UpdateOutput = z.object({ updated: z.array(InstallOutput), up_to_date: z.array(ProductRef) });

export const UninstallOutput = z.object({ product: ProductRef, version: z.string(), removed: z.array(z.string()) });

export const SetupOutput = z.object({
  product: ProductRef,
  completed_steps: z.array(z.number().int()),
  completed_count: z.number().int(),
  total_count: z.number().int(),
  completed: z.boolean(),
});

export const LicenseCheckOutput = z.object({
  product: ProductRef,
  licensed: z.literal(true),
  code: z.string(),
  /** `online`: asked the service now; `cached`: verified offline before the policy's recheck time; `offline`: the
   * service could not be reached and the cached certificate verified. */
  source: z.enum(["online", "cached", "offline"]),
  device_id: z.string(),
  certificate_expires_at: z.string().nullable(),
  recheck_after: z.string(),
});

export const UsageConsentOutput = z.object({ consent: z.boolean(), discarded_days: z.number().int() });

export const UsagePushOutput = z.object({ sent_days: z.number().int(), stored: z.number().int() });

export const UsageRecordOutput = z.object({ product_id: z.number().int(), counted: z.boolean() });

export const ReportOutput = z.object({
  ticket_id: z.number().int(),
  deduplicated: z.boolean(),
  report_count: z.number().int(),
  diagnostics_attached: z.boolean(),
});

export const CrashReportsOutput = z.object({ crash_reports: z.boolean() });

/** Command name to its output schema, for the documentation and the tests. */
export const outputSchemas = {
  error: ErrorOutput,
  login: LoginOutput,
  logout: LogoutOutput,
  whoami: WhoamiOutput,
  "auth status": AuthStatusOutput,
  library: LibraryOutput,
  products: ProductsOutput,
  releases: ReleasesOutput,
  updates: UpdatesOutput,
  install: InstallOutput,
  update: UpdateOutput,
  uninstall: UninstallOutput,
  setup: SetupOutput,
  "license check": LicenseCheckOutput,
  "usage consent": UsageConsentOutput,
  "usage push": UsagePushOutput,
  "usage record": UsageRecordOutput,
  "report problem": ReportOutput,
  "report crashes": CrashReportsOutput,
};
