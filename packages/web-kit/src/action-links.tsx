type ActionLink = { href: string; label: string };

/** A page's way on: its main action as a button, and the one beside it in the secondary style. */
export function ActionLinks({ main, other }: { main: ActionLink; other: ActionLink }) {
  return (
    <p className="actions">
      <a href={main.href} className="button">
        {main.label}
      </a>
      <a href={other.href} className="button secondary">
        {other.label}
      </a>
    </p>
  );
}
