import type { ReactNode } from "react";

/** A part of a page in a card, named by its heading (the `id` ties the two together for screen readers). */
export function CardSection({ id, title, children }: { id: string; title: ReactNode; children: ReactNode }) {
  return (
    <section className="card" aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      {children}
    </section>
  );
}
