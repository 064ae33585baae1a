"use client";

import { useRef } from "react";

/**
 * A destructive action behind a confirmation: the button opens a modal dialog (focus moves into it, Escape closes
 * it) whose own button submits the form. Nothing happens without the second click.
 */
export function ConfirmButton({
  label,
  title,
  body,
  confirmLabel,
  cancelLabel,
  action,
  fields,
  dialogId = fields.id,
  tone = "danger",
}: {
  label: string;
  title: string;
  body: string;
  confirmLabel: string;
  cancelLabel: string;
  action: (form: FormData) => void | Promise<void>;
  fields: Record<string, string>;
  /** Unique on the page: the dialog's title id (defaults to the posted id). */
  dialogId?: string;
  /** `secondary` for an action that gives something back (unblocking) rather than taking it away. */
  tone?: "danger" | "secondary";
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  return (
    <>
      <button type="button" className={`button ${tone} small`} onClick={() => dialog.current?.showModal()}>
        {label}
      </button>
      <dialog ref={dialog} className="dialog" aria-labelledby={`${dialogId}-title`}>
        <form action={action} className="stack">
          <h2 id={`${dialogId}-title`}>{title}</h2>
          <p>{body}</p>
          {Object.entries(fields).map(([name, value]) => (
            <input key={name} type="hidden" name={name} value={value} />
          ))}
          <div className="actions">
            <button type="button" className="button secondary" onClick={() => dialog.current?.close()}>
              {cancelLabel}
            </button>
            <button type="submit" className={`button ${tone}`}>
              {confirmLabel}
            </button>
          </div>
        </form>
      </dialog>
    </>
  );
}
