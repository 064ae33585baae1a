import type { ReactNode } from "react";

/**
 * A list page's table: the empty-state line when there are no rows, otherwise a table with column headers and, when the
 * rows have actions, a last, visually hidden header over them. The rows come as children (`<tr>` elements) whose cells
 * name their column (`data-label`, the header's words) and whose last cell, if they have actions, is `row-actions`: at
 * phone width each row becomes a card of labelled lines (`table.stacked`), so that no word is broken letter by letter
 * and no button leaves the screen.
 */
export function RecordTable({
  rows,
  empty,
  headers,
  actions,
  className,
  children,
}: {
  rows: number;
  empty: string;
  headers: string[];
  /** The actions column's name, read by screen readers; none when the rows have no actions. */
  actions?: string;
  className?: string;
  children: ReactNode;
}) {
  if (rows === 0) return <p className="empty">{empty}</p>;
  return (
    <div className="table-wrap">
      <table className={className ? `stacked ${className}` : "stacked"}>
        <thead>
          <tr>
            {headers.map((header) => (
              <th scope="col" key={header}>
                {header}
              </th>
            ))}
            {actions !== undefined && (
              <th scope="col">
                <span className="visually-hidden">{actions}</span>
              </th>
            )}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** Names shown as code tags (abilities, scopes). */
export function CodeTags({ items }: { items: string[] }) {
  return (
    <ul className="tags">
      {items.map((item) => (
        <li key={item}>
          <code>{item}</code>
        </li>
      ))}
    </ul>
  );
}
