/**
 * Every procedure builder, one per kind of caller (as cal.com keeps them): each decides who may call before the
 * input is read (`authorize`, `authorizeDesign`), then the builders that add a target (`productProcedure`).
 */
export { accountProcedure, publicProcedure, sessionProcedure } from "./account";
export { authorize, authorizeDesign } from "./authorize";
export { designProcedure, designPublicProcedure } from "./design";
export { productProcedure } from "./product";
