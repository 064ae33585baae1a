import { baseProcedure } from "../trpc";
import { authorizeDesign } from "./authorize";
import { callerMiddleware } from "./caller";

/** For the design host's agent API: a design agent token with the role the route declares (`meta.role`). */
export const designProcedure = baseProcedure.use(callerMiddleware(authorizeDesign));
