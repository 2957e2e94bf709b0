import type { ReactNode } from 'react';

/** The last column of a table whose rows end in buttons: named for screen readers only. */
export const ACTIONS = { label: 'Actions', hidden: true } as const;

type Shown = string | { label: string; hidden: boolean };
type Column = Shown | false | null | undefined;

type DataTableProps = {
  label: string;
  columns: Column[];
  children: ReactNode;
  /** Roomy rows for a page's main list (devices, runners); compact for lists inside a section. */
  compact?: boolean;
  /** Digits of equal width, so that columns of figures line up. */
  numeric?: boolean;
};

/**
 * A table with its column headers: the wrapper that scrolls it on narrow screens, the
 * accessible name, and one `<th scope="col">` per column (falsy entries are columns not shown
 * to this user). The rows are the children: a `<tbody>`.
 */
export function DataTable({ label, columns, children, compact = true, numeric = false }: DataTableProps) {
  const className = ['table', compact && 'table-compact', numeric && 'table-numeric'].filter(Boolean).join(' ');
  return (
    <div className="table-wrap">
      <table className={className} aria-label={label}>
        <thead>
          <tr>
            {columns.filter((column): column is Shown => Boolean(column)).map((column, index) => {
              const { label: name, hidden } = typeof column === 'string' ? { label: column, hidden: false } : column;
              return (
                // Two columns may share a name (two pools called alike); their places differ.
                <th scope="col" key={`${index}-${name}`}>
                  {hidden ? <span className="visually-hidden">{name}</span> : name}
                </th>
              );
            })}
          </tr>
        </thead>
        {children}
      </table>
    </div>
  );
}
