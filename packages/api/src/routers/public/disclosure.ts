import fs from "node:fs/promises";
import { SetupError } from "@shelf/db/env";
import type { ApiEnv } from "../../env";
import { PublicDisclosureData } from "./schemas";

/**
 * The business disclosure, from configuration: the JSON document in SHELF_DISCLOSURE, or in the file
 * SHELF_DISCLOSURE_FILE names (`{"ko": {...}, "en": {...}}`, every field of DisclosureData in each). Checked at start:
 * a missing field stops the start with one line. Undefined when neither is set.
 */
export async function loadDisclosure(env: ApiEnv): Promise<PublicDisclosureData | undefined> {
  const where = env.SHELF_DISCLOSURE !== undefined ? "SHELF_DISCLOSURE" : env.SHELF_DISCLOSURE_FILE;
  if (where === undefined) return undefined;
  let text: string;
  try {
    text = env.SHELF_DISCLOSURE ?? (await fs.readFile(env.SHELF_DISCLOSURE_FILE as string, "utf8"));
  } catch (error) {
    throw new SetupError(
      `SHELF_DISCLOSURE_FILE ${where}: ${(error as NodeJS.ErrnoException).code ?? "cannot be read"}.`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new SetupError(`${where} is not JSON.`);
  }
  const parsed = PublicDisclosureData.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SetupError(`${where}: ${issue?.path.join(".")} ${issue?.message}.`);
  }
  return parsed.data;
}

/** What the demo publishes when no disclosure is configured: plainly a sample. */
export const DEMO_DISCLOSURE: PublicDisclosureData = {
  ko: {
    company_name: "셸프 데모 (예시)",
    representative_name: "홍길동 (예시)",
    business_registration_number: "000-00-00000 (예시)",
    mail_order_registration_number: "제0000-서울강남-0000호 (예시)",
    address: "서울특별시 강남구 테헤란로 000 (예시)",
    phone: "02-000-0000",
    email: "hello@shelf.test",
    website: "https://shelf.test",
    ftc_biz_info_url: "https://www.ftc.go.kr/bizCommPop.do?wrkr_no=0000000000",
  },
  en: {
    company_name: "Shelf Demo (sample)",
    representative_name: "Gildong Hong (sample)",
    business_registration_number: "000-00-00000 (sample)",
    mail_order_registration_number: "No. 0000-Seoul Gangnam-0000 (sample)",
    address: "000 Teheran-ro, Gangnam-gu, Seoul (sample)",
    phone: "+82 2-000-0000",
    email: "hello@shelf.test",
    website: "https://shelf.test",
    ftc_biz_info_url: "https://www.ftc.go.kr/bizCommPop.do?wrkr_no=0000000000",
  },
};
