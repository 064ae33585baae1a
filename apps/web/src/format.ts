import { getFormatter } from "next-intl/server";

/** Dates as the page's language writes them (UTC, the pages' time zone); "—" for none. */
export async function dateFormatter() {
  const format = await getFormatter();
  return (iso: string | null | undefined, withTime = false) =>
    iso
      ? format.dateTime(new Date(iso), withTime ? { dateStyle: "medium", timeStyle: "short" } : { dateStyle: "medium" })
      : "—";
}
