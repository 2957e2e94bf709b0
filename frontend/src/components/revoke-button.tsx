import type { UseMutationResult } from '@tanstack/react-query';

type RevokeButtonProps<TData, V> = {
  /** One mutation for the whole table: the row is the one whose `variables` it was last called with. */
  mutation: Pick<UseMutationResult<TData, Error, V>, 'mutate' | 'isPending' | 'isError' | 'error' | 'variables'>;
  /** What `mutation.mutate` is called with for this row (its id or name). */
  variables: V;
  /** The row's name: after the verb for screen readers ("Revoke nightly bench") and in the error. */
  name: string;
  /** Asked with `window.confirm` first; nothing is sent when it is declined. */
  confirm?: string;
  verb?: string;
};

/**
 * The danger button at the end of a row that revokes, deletes or removes it: asks first, is
 * disabled while its request runs, and says beside it why that row's request failed.
 */
export function RevokeButton<TData, V>({ mutation, variables, name, confirm, verb = 'Revoke' }: RevokeButtonProps<TData, V>) {
  const thisRow = mutation.variables === variables;
  return (
    <>
      <button
        type="button"
        className="button button-danger"
        disabled={mutation.isPending && thisRow}
        onClick={() => {
          if (confirm === undefined || window.confirm(confirm)) mutation.mutate(variables);
        }}
      >
        {verb}
        <span className="visually-hidden"> {name}</span>
      </button>
      {mutation.isError && thisRow && (
        <div role="alert" className="text-error small">
          Could not {verb.toLowerCase()} {name}: {mutation.error?.message}
        </div>
      )}
    </>
  );
}
