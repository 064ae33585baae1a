"use client";

import { SessionProvider } from "next-auth/react";
import type { ReactNode } from "react";

/**
 * Tells next-auth's browser helpers (signIn, signOut) where its endpoints are (/auth). The pages read the session on
 * the server, so the provider starts with none and never polls for one.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  return (
    <SessionProvider basePath="/auth" session={null} refetchOnWindowFocus={false}>
      {children}
    </SessionProvider>
  );
}
