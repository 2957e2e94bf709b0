import { useMutation } from '@tanstack/react-query';
import { screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderWithProviders } from '@/testing/test-utils';
import { RevokeButton } from './revoke-button';

type Row = { id: string; name: string };
const ROWS: Row[] = [
  { id: 't1', name: 'nightly bench' },
  { id: 't2', name: 'old ci' },
];

/** Two rows sharing one mutation, as the tables do; `revoke` is what the request does. */
type TableProps = { revoke: (id: string) => Promise<string>; confirm?: (row: Row) => string; verb?: string };

function Table({ revoke, confirm, verb }: TableProps) {
  const mutation = useMutation({ mutationFn: revoke });
  return (
    <ul>
      {ROWS.map((row) => (
        <li key={row.id} data-testid={row.id}>
          <RevokeButton mutation={mutation} variables={row.id} name={row.name} confirm={confirm?.(row)} verb={verb} />
        </li>
      ))}
    </ul>
  );
}

describe('RevokeButton', () => {
  afterEach(() => vi.restoreAllMocks());

  it('sends nothing when the confirmation is declined, and the row’s id when it is accepted', async () => {
    const revoke = vi.fn((id: string) => Promise.resolve(id));
    const confirm = vi.spyOn(window, 'confirm').mockReturnValueOnce(false).mockReturnValueOnce(true);
    const { user } = renderWithProviders(<Table revoke={revoke} confirm={(row) => `Revoke ${row.name}?`} />);
    const button = screen.getByRole('button', { name: 'Revoke old ci' });
    await user.click(button);
    expect(confirm).toHaveBeenLastCalledWith('Revoke old ci?');
    expect(revoke).not.toHaveBeenCalled();
    await user.click(button);
    await waitFor(() => expect(revoke).toHaveBeenCalledTimes(1));
    expect(revoke.mock.calls[0]![0]).toBe('t2');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('asks nothing without a confirmation text, and disables only the row whose request runs', async () => {
    let finish: (id: string) => void = () => {};
    const revoke = vi.fn((id: string) => new Promise<string>((resolve) => (finish = () => resolve(id))));
    const confirm = vi.spyOn(window, 'confirm');
    const { user } = renderWithProviders(<Table revoke={revoke} />);
    await user.click(screen.getByRole('button', { name: 'Revoke nightly bench' }));
    expect(confirm).not.toHaveBeenCalled();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Revoke nightly bench' })).toBeDisabled());
    expect(screen.getByRole('button', { name: 'Revoke old ci' })).toBeEnabled();
    finish('t1');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Revoke nightly bench' })).toBeEnabled());
  });

  it('says beside the row why its request failed, with the verb given', async () => {
    const revoke = vi.fn(() => Promise.reject(new Error('Token is already revoked.')));
    const { user } = renderWithProviders(<Table revoke={revoke} verb="Delete" />);
    await user.click(screen.getByRole('button', { name: 'Delete nightly bench' }));
    const alert = await within(screen.getByTestId('t1')).findByRole('alert');
    expect(alert).toHaveTextContent('Could not delete nightly bench: Token is already revoked.');
    expect(within(screen.getByTestId('t2')).queryByRole('alert')).not.toBeInTheDocument();
  });
});
