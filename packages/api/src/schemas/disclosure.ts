import { z } from "zod";

export const DisclosureData = z
  .object({
    company_name: z.string().min(1),
    representative_name: z.string().min(1),
    business_registration_number: z.string().min(1),
    mail_order_registration_number: z.string().min(1),
    address: z.string().min(1),
    phone: z.string().min(1),
    email: z.string().min(1),
    website: z.string().min(1),
    ftc_biz_info_url: z.string().min(1),
  })
  .meta({ id: "DisclosureData" });

/** The business disclosure Korean e-commerce law asks sellers to publish, in Korean and English. */
export const PublicDisclosureData = z
  .object({ ko: DisclosureData, en: DisclosureData })
  .meta({ id: "PublicDisclosureData" });
export type PublicDisclosureData = z.infer<typeof PublicDisclosureData>;
