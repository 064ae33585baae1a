"use client";

import { useState } from "react";

/** A value to copy (a checksum, say): shown whole, selectable, with a button that copies it and says so. */
export function CopyText({
  id,
  label,
  value,
  copy,
  copied,
}: {
  id: string;
  label: string;
  value: string;
  copy: string;
  copied: string;
}) {
  const [done, setDone] = useState(false);
  return (
    <div className="copy-text">
      <label htmlFor={id} className="small muted">
        {label}
      </label>
      <div className="copy-row">
        <input id={id} readOnly value={value} className="mono" onFocus={(e) => e.currentTarget.select()} />
        <button
          type="button"
          className="button secondary small"
          onClick={() =>
            navigator.clipboard.writeText(value).then(
              () => setDone(true),
              () => setDone(false),
            )
          }
        >
          {copy}
        </button>
      </div>
      <p role="status" className="muted small">
        {done ? copied : ""}
      </p>
    </div>
  );
}
