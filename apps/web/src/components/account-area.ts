/** The pages of the account area, in the order its menu lists them (the header's "Account" covers them all). */
export const ACCOUNT_AREA = [
  { href: "/account/profile", label: "profile" },
  { href: "/account/sessions", label: "sessions" },
  { href: "/account/security-log", label: "securityLog" },
  { href: "/account/delete", label: "delete" },
] as const;
