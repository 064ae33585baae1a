export {};

declare module "vitest" {
  export interface ProvidedContext {
    /** URL of the test server's maintenance connection (any database on it). */
    dbServerUrl: string;
    /** Migrated template every test file copies its own database from. */
    dbTemplate: string;
    /** Prefix of every database this run creates, so teardown can drop them all. */
    dbRunPrefix: string;
  }
}
