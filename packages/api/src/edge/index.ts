export { fromFetch, handleFetch, toResponse } from "./fetch";
export { createEdge, type Edge, type EdgeOptions } from "./handler";
export { forwardedRequest, hostNames, isForwardedHeader } from "./hosts";
export { answerClientError, fromNode, isValidHost, originForm, writeNode } from "./node";
export type { DocumentInfo, OpenApiDocument } from "./openapi";
export type { EdgeRequest } from "./request";
export type { EdgeResult } from "./results";
export { collectRoutes, type EdgeRoute, RouteTable } from "./routes";
export { createEdgeServer, type EdgeServer, type EdgeServerOptions } from "./server";
