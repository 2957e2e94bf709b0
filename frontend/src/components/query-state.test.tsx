import { render, screen } from '@testing-library/react';
import type { UseQueryResult } from '@tanstack/react-query';
import { describe, expect, it } from 'vitest';
import { ApiError } from '@/lib/api-client';
import { QueryState } from './query-state';

type Rows = string[];
const as = (state: Partial<UseQueryResult<Rows, Error>>) => state as UseQueryResult<Rows, Error>;

function view(query: UseQueryResult<Rows, Error>) {
  return render(
    <QueryState query={query} what="the rows" isEmpty={(rows) => rows.length === 0} empty={<p>Nothing yet.</p>}>
      {(rows) => <ul>{rows.map((row) => <li key={row}>{row}</li>)}</ul>}
    </QueryState>,
  );
}

describe('QueryState', () => {
  it('says it is loading while the query is pending', () => {
    view(as({ isPending: true, isError: false }));
    expect(screen.getByRole('status')).toHaveTextContent('Loading the rows…');
  });

  it('names what could not be loaded and why', () => {
    view(as({ isPending: false, isError: true, error: new Error('Database is down.') }));
    expect(screen.getByRole('alert')).toHaveTextContent('Could not load the rows: Database is down.');
  });

  it('shows the empty state for no rows, and the rows otherwise', () => {
    const { unmount } = view(as({ isPending: false, isError: false, data: [] }));
    expect(screen.getByText('Nothing yet.')).toBeInTheDocument();
    unmount();
    view(as({ isPending: false, isError: false, data: ['a', 'b'] }));
    expect(screen.getAllByRole('listitem').map((item) => item.textContent)).toEqual(['a', 'b']);
    expect(screen.queryByText('Nothing yet.')).not.toBeInTheDocument();
  });

  it('says who may see it when the server refuses this user, and the reason for other errors', () => {
    const refused = as({ isPending: false, isError: true, error: new ApiError(403, { detail: 'Forbidden.' }) });
    const { unmount } = render(
      <QueryState query={refused} what="usage" forbidden="Only owners of the organization see its usage.">
        {() => null}
      </QueryState>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent(/^Only owners of the organization see its usage\.$/);
    unmount();
    const failed = as({ isPending: false, isError: true, error: new ApiError(503, { detail: 'Database is down.' }) });
    render(
      <QueryState query={failed} what="usage" forbidden="Only owners of the organization see its usage.">
        {() => null}
      </QueryState>,
    );
    expect(screen.getByRole('alert')).toHaveTextContent('Could not load usage: Database is down.');
  });
});
