import type { ReactNode } from 'react';

/** The last column of a table whose rows end in buttons: named for screen readers only. */
export const ACTIONS = { label: 'Actions', hidden: true } as const;

type Shown = string | { label: string; hidden: boolean };
type Column = Shown | false | null | undefined;

/**
 * A compact table with its column headers: the wrapper that scrolls it on narrow screens, the
 * accessible name, and one `<th scope="col">` per column (falsy entries are columns not shown
 * to this user). The rows are the children: a `<tbody>`.
 */
export function DataTable({ label, columns, children }: { label: string; columns: Column[]; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table className="table table-compact" aria-label={label}>
        <thead>
          <tr>
            {columns.filter((column): column is Shown => Boolean(column)).map((column) => {
              const { label: name, hidden } = typeof column === 'string' ? { label: column, hidden: false } : column;
              return (
                <th scope="col" key={name}>
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
