/** The start-up every app's process calls (server side); pages import `@shelf/api/host/pages` instead. */
export { BUILD_REPORT, BUILD_SOURCES, buildState, failStart, prepareStart } from "@shelf/server/host/build";
export { APP_NODE_FLAGS, isLaunched, type LaunchedApp, launchApps, type ReadyMessage } from "@shelf/server/host/launch";
export { contentSecurityPolicy, type PageHeaderOptions, pageHeaders } from "@shelf/server/host/page-headers";
export { withPageStatus } from "@shelf/server/host/page-status";
export type { Mounted, PageServer } from "@shelf/server/host/start";
export { servedWithoutDatabase, unavailableStatus } from "@shelf/server/host/unavailable-page";
export { HostEnv, portSetting, readAppSettings } from "./env";
export {
  type EdgeBasics,
  type HostApp,
  type HostBasics,
  type HostConfig,
  type RunningHost,
  startHost,
} from "./start";
export { createUnavailablePage } from "./unavailable-page";
