/** A field's own error messages, linked to the field by `aria-describedby`. */
export function FieldError({ id, messages }: { id: string; messages: string[] | undefined }) {
  if (!messages?.length) return null;
  return (
    <p className="field-error" id={id}>
      {messages.join(" ")}
    </p>
  );
}
