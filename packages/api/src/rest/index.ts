export { createRestHandler, type RestHandler, type RestHandlerOptions, type RestRequestInfo } from "./handler";
export { getOpenApiDocument } from "./openapi";
export { type RestRoute, restRoutes } from "./routes";
