"use client";

import { type ReactNode, useEffect, useRef } from "react";
import type { FormState } from "./state";

/**
 * What a form's action answered, as one paragraph: the refusal's message (an alert) with where to fix it when the
 * refusal says (`link`), or `done`'s words once it succeeded (a status; nothing when `done` is not given). It takes
 * the focus whenever the answer changes, so the keyboard and a screen reader land on it.
 */
export function FormMessage<Data>({ state, done }: { state: FormState<Data>; done?: (data: Data) => ReactNode }) {
  const message = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    if (state.status !== "idle") message.current?.focus();
  }, [state]);
  if (state.status === "failed") {
    return (
      <p className="error" role="alert" tabIndex={-1} ref={message}>
        {state.message}
        {state.link && (
          <>
            {" "}
            <a href={state.link.href}>{state.link.label}</a>
          </>
        )}
      </p>
    );
  }
  if (state.status === "done" && done) {
    return (
      <p className="notice" role="status" tabIndex={-1} ref={message}>
        {done(state.data)}
      </p>
    );
  }
  return null;
}
