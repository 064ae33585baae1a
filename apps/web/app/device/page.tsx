import { accountAbilities, describeAbility } from "@shelf/api";
import { titleFrom } from "@shelf/web-kit/site-head";
import { getLocale, getTranslations } from "next-intl/server";
import { requireSession } from "../../src/auth/session";
import { NarrowCard } from "../../src/components/page-section";
import { DeviceForm } from "./device-form";

export const generateMetadata = titleFrom("device", "title");

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
    <NarrowCard title={t("title")}>
      <DeviceForm initialCode={code} lead={t("lead", { email: session.email })} abilityText={abilityText} />
    </NarrowCard>
  );
}
