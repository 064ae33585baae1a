"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";

/** Signs out through next-auth (its CSRF token, its cookie); the server then ends this browser's session. */
export function SignOutButton({ label, pendingLabel }: { label: string; pendingLabel: string }) {
  const [pending, setPending] = useState(false);
  return (
    <button
      type="button"
      className="button-link"
      disabled={pending}
      onClick={async () => {
        setPending(true);
        await signOut({ callbackUrl: "/sign-in?signedOut=1" });
      }}
    >
      {pending ? pendingLabel : label}
    </button>
  );
}
