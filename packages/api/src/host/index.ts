/** The start-up every app's process calls (server side); pages import `@shelf/api/host/pages` instead. */
export { BUILD_REPORT, BUILD_SOURCES, buildState, failStart, prepareStart } from "./build";
export { HostEnv, portSetting, readAppSettings } from "./env";
export { APP_NODE_FLAGS, isLaunched, type LaunchedApp, launchApps, type ReadyMessage } from "./launch";
export { contentSecurityPolicy, type PageHeaderOptions, pageHeaders } from "./page-headers";
export { withPageStatus } from "./page-status";
export {
  type EdgeBasics,
  type HostApp,
  type HostBasics,
  type HostConfig,
  type Mounted,
  type PageServer,
  type RunningHost,
  startHost,
} from "./start";
export { createUnavailablePage, servedWithoutDatabase, unavailableStatus } from "./unavailable-page";
