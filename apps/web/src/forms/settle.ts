import { DomainError } from "@shelf/api";
import { revalidatePath } from "next/cache";
import { pageCaller, requireSession } from "../auth/session";

/**
 * Runs a removal a confirmation dialog asked for. A refusal from the service (already revoked, not this account's)
 * needs no message: the list rendered next shows the truth. Anything else is a fault for the error page and the log.
 */
export async function settleRemoval(remove: () => Promise<unknown>): Promise<void> {
  try {
    await remove();
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof DomainError ? error.cause : error;
    if (!(cause instanceof DomainError)) throw error;
  }
}

/** The positive integer id a form posted, or null. */
export function postedId(form: FormData): number | null {
  const id = Number(form.get("id"));
  return Number.isInteger(id) && id > 0 ? id : null;
}

/**
 * A row's action behind a confirmation (sign out, revoke, release, remove): the person signed in on `page` does `act`
 * to the posted id with their caller, a refusal settled quietly (settleRemoval); then `page` shows the outcome.
 */
export async function actOnPostedRow(
  form: FormData,
  page: string,
  act: (caller: Awaited<ReturnType<typeof pageCaller>>, id: number) => Promise<unknown>,
): Promise<void> {
  const session = await requireSession(page);
  const id = postedId(form);
  if (id !== null) await settleRemoval(async () => act(await pageCaller(session), id));
  revalidatePath(page);
}
