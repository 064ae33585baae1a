"use client";

import { type ReactNode, useActionState, useEffect, useRef } from "react";
import { FormMessage } from "./form-message";
import { keepTyped } from "./keep-typed";
import { type FormState, idle } from "./state";

/** A form's server action, as `useActionState` takes it. */
type FormAction<Data> = (state: FormState<Data>, form: FormData) => Promise<FormState<Data>>;

/**
 * A form's server action made ready for the page: its answer (`state`), the action to give the form, whether it runs,
 * and the per-field messages of a refusal (`fields`, empty otherwise).
 */
export function useFormAction<Data>(serverAction: FormAction<Data>) {
  const [state, action, pending] = useActionState(serverAction, idle as FormState<Data>);
  const fields: Record<string, string[]> = state.status === "failed" ? state.fields : {};
  return { state, action, pending, fields };
}

/**
 * The shell the account forms share: the action's answer above the fields (`FormMessage`, `done`'s words once it
 * succeeded), the fields, and the submit button, which says `submitting` while the action runs. What was typed stays
 * after a refusal (`keepTyped`); a form that `forgets` (passwords) empties instead, and after success too.
 */
export function AccountForm<Data>({
  form: { state, action, pending },
  done,
  submit,
  submitting = submit,
  button = "button",
  forgets = false,
  children,
}: {
  form: ReturnType<typeof useFormAction<Data>>;
  done?: (data: Data) => ReactNode;
  submit: string;
  submitting?: string;
  /** The button's classes. */
  button?: string;
  forgets?: boolean;
  children: ReactNode;
}) {
  const element = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (forgets && state.status === "done") element.current?.reset();
  }, [forgets, state]);
  return (
    <form action={action} onSubmit={forgets ? undefined : keepTyped(action)} ref={element} className="stack">
      <FormMessage state={state} done={done} />
      {children}
      <button type="submit" className={button} disabled={pending}>
        {pending ? submitting : submit}
      </button>
    </form>
  );
}
