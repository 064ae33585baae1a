import type { InputHTMLAttributes, ReactNode } from "react";

type Props = Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "name"> & {
  id: string;
  name: string;
  label: ReactNode;
  /** Shown under the field and read with it. */
  hint?: string;
  /** The server's messages for this field: the field is marked invalid and reads them too. */
  errors?: string[];
};

/** A labelled input with its hint and its errors tied to it (aria-describedby, aria-invalid). */
export function TextField({ id, name, label, hint, errors, ...input }: Props) {
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = errors?.length ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} name={name} aria-invalid={errorId ? true : undefined} aria-describedby={describedBy} {...input} />
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      {errorId && (
        <p className="field-error" id={errorId}>
          {errors?.join(" ")}
        </p>
      )}
    </div>
  );
}

type FieldProps = Pick<Props, "id" | "name" | "label" | "hint" | "errors">;

/**
 * A password: the one in use (`current-password`), or a new one (`new-password`: 8 characters at least, which a
 * password manager may offer to make).
 */
export function PasswordField({ fresh = false, ...field }: FieldProps & { fresh?: boolean }) {
  return (
    <TextField
      {...field}
      type="password"
      autoComplete={fresh ? "new-password" : "current-password"}
      required
      minLength={fresh ? 8 : undefined}
      maxLength={1024}
    />
  );
}

/** An email address, as long as an address may be (254 characters). */
export function EmailField(field: FieldProps) {
  return <TextField {...field} type="email" autoComplete="email" required maxLength={254} />;
}
