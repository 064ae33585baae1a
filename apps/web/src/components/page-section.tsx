import type { ReactNode } from "react";

/** An account or settings page: its title and the line that says what it is for, then its parts. */
export function PageSection({ title, lead, children }: { title: string; lead: ReactNode; children: ReactNode }) {
  return (
    <section className="stack-large">
      <header>
        <h1>{title}</h1>
        <p className="muted">{lead}</p>
      </header>
      {children}
    </section>
  );
}

/**
 * A page of one narrow card (signing in, a mailed link, the device code): its title, the line that says what it is
 * for when it has one, then its form.
 */
export function NarrowCard({ title, lead, children }: { title: string; lead?: ReactNode; children: ReactNode }) {
  return (
    <section className="narrow card">
      <h1>{title}</h1>
      {lead !== undefined && <p className="muted">{lead}</p>}
      {children}
    </section>
  );
}
