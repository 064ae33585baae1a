export { DatabaseDeadlineError, databaseDown, databaseUnavailable, withDeadline } from "./availability";
export {
  type CreateDbOptions,
  createDb,
  type Database,
  type DbHandle,
  type DbTimeouts,
  DEFAULT_DB_TIMEOUTS,
  type Executor,
} from "./client";
export * as schema from "./schema";
