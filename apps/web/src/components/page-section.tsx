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
