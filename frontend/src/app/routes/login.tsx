import { Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { LoginForm } from '@/features/auth/components/login-form';
import { useUser } from '@/features/auth/api/get-me';

/** Only same-app paths are followed after login, never another origin. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/comparisons';
}

export function LoginRoute() {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const user = useUser();
  const next = safeNext(searchParams.get('next'));

  if (user.data) return <Navigate to={next} replace />;

  return (
    <div className="auth-page">
      <div className="auth-card card">
        <div className="auth-brand">
          <img src="/favicon.svg" alt="" width={36} height={36} />
          <span>LatencyLab</span>
        </div>
        <h1>Sign in</h1>
        <p className="muted">Benchmark HTTPS/1.1, HTTP/2, HTTP/3 and gRPC on real devices.</p>
        <LoginForm onSuccess={() => void navigate(next, { replace: true })} />
      </div>
    </div>
  );
}
