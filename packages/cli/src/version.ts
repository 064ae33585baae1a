declare const SHELF_CLI_VERSION: string | undefined;

/** The client's version, from package.json at build time (the bundle defines it). */
export const CLIENT_VERSION = typeof SHELF_CLI_VERSION === "string" ? SHELF_CLI_VERSION : "0.0.0-dev";

/** How a person gets the newest client (the package as published). */
export const UPGRADE_COMMAND = "npm install -g @shelf/cli@latest";
