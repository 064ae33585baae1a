import type { ReactNode } from "react";

/**
 * A list of records, or the one line that says there are none: a page never shows an empty list, whose heading would
 * then stand over nothing. Each item is drawn by the children (an `<li>` with its key); `ordered` makes it an `<ol>`
 * where the order itself means something (newest first, oldest first).
 */
export function ListOrEmpty<T>({
  items,
  empty,
  emptyClassName = "empty",
  ordered = false,
  className,
  label,
  children,
}: {
  items: readonly T[];
  empty: ReactNode;
  emptyClassName?: string;
  ordered?: boolean;
  className: string;
  /** The list's name for screen readers, where no heading names it. */
  label?: string;
  children: (item: T) => ReactNode;
}) {
  if (items.length === 0) return <p className={emptyClassName}>{empty}</p>;
  const List = ordered ? "ol" : "ul";
  return (
    <List className={className} aria-label={label}>
      {items.map((item) => children(item))}
    </List>
  );
}
