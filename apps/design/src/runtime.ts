import { runtimeSlot } from "@shelf/api/host/pages";
import type { PagesRuntime } from "@shelf/web-kit/runtime";
import type { DesignConfig } from "./env";

/** What the server started with, for the pages (the gallery reads the database and its images through it). */
export type DesignRuntime = PagesRuntime<DesignConfig>;

const slot = runtimeSlot<DesignRuntime>("design");

export const setRuntime = slot.set;
export const getRuntime = slot.get;
