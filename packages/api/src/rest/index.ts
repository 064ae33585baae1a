export {
  createRestHandler,
  type RestHandler,
  type RestHandlerOptions,
  type RestRequestInfo,
  type RestResult,
  toResponse,
} from "./handler";
export { getOpenApiDocument } from "./openapi";
export { type RestRoute, restRoutes } from "./routes";
