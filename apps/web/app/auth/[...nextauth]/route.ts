import NextAuth from "next-auth";
import { authOptions } from "../../../src/auth/options";

/** next-auth's endpoints (csrf, providers, sign-in callback, sign-out, session) under /auth: /api is the REST API's. */
async function handler(request: Request, context: { params: Promise<{ nextauth: string[] }> }) {
  return NextAuth(request as never, context as never, authOptions());
}

export { handler as GET, handler as POST };
