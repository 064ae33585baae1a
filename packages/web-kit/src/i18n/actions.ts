"use server";

import { isLocale, LOCALE_COOKIE } from "@shelf/api/host/pages";
import { cookies } from "next/headers";

/** The language switch: kept for a year, for this browser. */
export async function chooseLocale(formData: FormData): Promise<void> {
  const locale = formData.get("locale");
  if (typeof locale !== "string" || !isLocale(locale)) return;
  (await cookies()).set(LOCALE_COOKIE, locale, {
    path: "/",
    maxAge: 365 * 24 * 60 * 60,
    sameSite: "lax",
    httpOnly: true,
  });
}
