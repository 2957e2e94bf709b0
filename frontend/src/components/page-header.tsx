import type { ReactNode } from 'react';

/** A page's title, what the page is for under it (the children), and its actions on the right. */
export function PageHeader({ title, children, actions }: { title: string; children?: ReactNode; actions?: ReactNode }) {
  return (
    <header className="page-header">
      <div>
        <h1>{title}</h1>
        {children && <p className="muted">{children}</p>}
      </div>
      {actions}
    </header>
  );
}
