export { launchChromium } from "@shelf/api/testing/apps";
