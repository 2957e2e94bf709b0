/** The page size of the API's page-number pagination (REST_FRAMEWORK PAGE_SIZE). */
export const PAGE_SIZE = 25;

type Page = { count: number; next?: string | null; previous?: string | null };

/** Previous · "Page n of m" · Next under a paginated list; nothing when one page holds it all. */
export function Pager({ page, data, onPage }: { page: number; data: Page; onPage: (page: number) => void }) {
  if (data.count <= PAGE_SIZE) return null;
  return (
    <nav className="button-row pager" aria-label="Pages">
      <button type="button" className="button" disabled={!data.previous} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span className="muted">
        Page {page} of {Math.ceil(data.count / PAGE_SIZE)}
      </span>
      <button type="button" className="button" disabled={!data.next} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}
