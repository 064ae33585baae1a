import { designBaseProcedure } from "../trpc";
import { publicCaller } from "./account";
import { authorizeDesign } from "./authorize";
import { designCallerMiddleware } from "./caller";

/** For the design host's agent API: a design agent token with the role the route declares (`meta.role`). */
export const designProcedure = designBaseProcedure.use(designCallerMiddleware(authorizeDesign));

/** For the design host's open routes (the gallery, the manifest's public documents): as the account host's. */
export const designPublicProcedure = designBaseProcedure.use(designCallerMiddleware(publicCaller));
