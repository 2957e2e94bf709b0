import { Link } from 'react-router-dom';

export function NotFoundRoute() {
  return (
    <div className="empty-state card">
      <h1>Page not found</h1>
      <p>
        <Link to="/comparisons">Back to comparisons</Link>
      </p>
    </div>
  );
}
