"use client";

/** Opens the browser's print dialog for the page (the invoice prints without the site's header and footer). */
export function PrintButton({ label }: { label: string }) {
  return (
    <button type="button" className="button secondary" onClick={() => window.print()}>
      {label}
    </button>
  );
}
