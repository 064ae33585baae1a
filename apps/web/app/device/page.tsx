import { accountAbilities, describeAbility } from "@shelf/api";
import type { Metadata } from "next";
import { getLocale, getTranslations } from "next-intl/server";
import { requireSession } from "../../src/auth/session";
import { DeviceForm } from "./device-form";

export async function generateMetadata(): Promise<Metadata> {
  return { title: (await getTranslations("device"))("title") };
}

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

/**
 * The verification page of device sign-in (RFC 8628's verification_uri). `?user_code=` (verification_uri_complete) only
 * fills the field in: nothing is looked up or decided until the person acts.
 */
export default async function DevicePage({ searchParams }: Props) {
  const params = await searchParams;
  const given = params.user_code;
  const code = typeof given === "string" && /^[A-Za-z -]{1,20}$/.test(given) ? given : "";
  const session = await requireSession(code ? `/device?user_code=${encodeURIComponent(code)}` : "/device");
  const t = await getTranslations("device");
  const locale = await getLocale();
  const abilityText = Object.fromEntries(accountAbilities.map((name) => [name, describeAbility(name, locale)]));
  return (
    <section className="narrow card">
      <h1>{t("title")}</h1>
      <DeviceForm initialCode={code} lead={t("lead", { email: session.email })} abilityText={abilityText} />
    </section>
  );
}
