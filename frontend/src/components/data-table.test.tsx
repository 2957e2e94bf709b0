import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ACTIONS, DataTable } from './data-table';

describe('DataTable', () => {
  it('names the table and its columns, the actions column for screen readers only, and leaves out falsy ones', () => {
    const canSeeEmails = ['viewer'].includes('owner');
    render(
      <DataTable label="Members" columns={['Member', canSeeEmails && 'Email', 'Role', ACTIONS]}>
        <tbody>
          <tr>
            <td>ada</td>
            <td>owner</td>
            <td>
              <button type="button">Remove</button>
            </td>
          </tr>
        </tbody>
      </DataTable>,
    );
    const table = screen.getByRole('table', { name: 'Members' });
    const headers = within(table).getAllByRole('columnheader');
    expect(headers.map((header) => header.textContent)).toEqual(['Member', 'Role', 'Actions']);
    expect(within(table).getByText('Actions')).toHaveClass('visually-hidden');
    expect(within(table).getByRole('button', { name: 'Remove' })).toBeInTheDocument();
  });

  it('is compact unless asked for roomy rows, and lines up figures when numeric', () => {
    const { rerender } = render(
      <DataTable label="Runners" columns={['Runner']}>
        <tbody />
      </DataTable>,
    );
    expect(screen.getByRole('table', { name: 'Runners' })).toHaveClass('table', 'table-compact');
    rerender(
      <DataTable label="Runners" columns={['Runner', 'Pool', 'Pool']} compact={false} numeric>
        <tbody />
      </DataTable>,
    );
    const table = screen.getByRole('table', { name: 'Runners' });
    expect(table).not.toHaveClass('table-compact');
    expect(table).toHaveClass('table', 'table-numeric');
    expect(within(table).getAllByRole('columnheader').map((header) => header.textContent)).toEqual(['Runner', 'Pool', 'Pool']);
  });

  it("adds the table's own class and test id, and a column's class and richer heading", () => {
    render(
      <DataTable
        label="Arms"
        columns={['Request', { label: 'h3', className: 'col-arm', content: <em>h3</em> }]}
        className="arms-table"
        testId="arms"
      >
        <tbody />
      </DataTable>,
    );
    const table = screen.getByTestId('arms');
    expect(table).toBe(screen.getByRole('table', { name: 'Arms' }));
    expect(table).toHaveClass('table', 'table-compact', 'arms-table');
    const arm = within(table).getByRole('columnheader', { name: 'h3' });
    expect(arm).toHaveClass('col-arm');
    expect(arm).toHaveAttribute('scope', 'col');
    expect(arm.querySelector('em')).toHaveTextContent('h3');
  });
});
