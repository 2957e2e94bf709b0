import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router-dom';
import { useUser } from '../api/get-me';
import { Spinner } from '@/components/spinner';

/** Renders its children for a signed-in user; sends anyone else to /login?next=…. */
export function ProtectedRoute({ children }: { children: ReactNode }) {
  const user = useUser();
  const location = useLocation();

  if (user.isPending) return <Spinner label="Checking your session" />;
  if (user.isError) {
    return (
      <p role="alert" className="alert alert-error">
        Could not reach LatencyLab: {user.error.message}
      </p>
    );
  }
  if (!user.data) {
    const next = encodeURIComponent(`${location.pathname}${location.search}`);
    return <Navigate to={`/login?next=${next}`} replace />;
  }
  return <>{children}</>;
}
