import type { ReactNode } from 'react';

/** The last column of a table whose rows end in buttons: named for screen readers only. */
export const ACTIONS = { label: 'Actions', hidden: true } as const;

type Heading = {
  label: string;
  /** Named for screen readers only. */
  hidden?: boolean;
  /** The header cell's class: a column's width, say. */
  className?: string;
  /** What the header cell shows when more than its label (a swatch beside an arm's name). */
  content?: ReactNode;
};
type Shown = string | Heading;
type Column = Shown | false | null | undefined;

type DataTableProps = {
  label: string;
  columns: Column[];
  children: ReactNode;
  /** Roomy rows for a page's main list (devices, runners); compact for lists inside a section. */
  compact?: boolean;
  /** Digits of equal width, so that columns of figures line up. */
  numeric?: boolean;
  /** A class of this one table's own, beside the shared table styles. */
  className?: string;
  testId?: string;
};

/**
 * A table with its column headers: the wrapper that scrolls it on narrow screens, the
 * accessible name, and one `<th scope="col">` per column (falsy entries are columns not shown
 * to this user). The rows are the children: a `<tbody>`.
 */
export function DataTable({
  label,
  columns,
  children,
  compact = true,
  numeric = false,
  className,
  testId,
}: DataTableProps) {
  const classes = ['table', compact && 'table-compact', numeric && 'table-numeric', className].filter(Boolean).join(' ');
  return (
    <div className="table-wrap">
      <table className={classes} aria-label={label} data-testid={testId}>
        <thead>
          <tr>
            {columns.filter((column): column is Shown => Boolean(column)).map((column, index) => {
              const heading: Heading = typeof column === 'string' ? { label: column } : column;
              const shown = heading.content ?? heading.label;
              return (
                // Two columns may share a name (two pools called alike); their places differ.
                <th scope="col" key={`${index}-${heading.label}`} className={heading.className}>
                  {heading.hidden ? <span className="visually-hidden">{shown}</span> : shown}
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
