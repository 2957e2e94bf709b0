import { Link, Navigate, useNavigate, useSearchParams } from 'react-router-dom';
import { AuthCard } from '@/features/auth/components/auth-card';
import { LoginForm } from '@/features/auth/components/login-form';
import { useUser } from '@/features/auth/api/get-me';
import { useSignupOpen } from '@/features/auth/api/accounts';

/** Only same-app paths are followed after login, never another origin. */
function safeNext(next: string | null): string {
  return next && next.startsWith('/') && !next.startsWith('//') ? next : '/comparisons';
}

export function LoginRoute() {
  const [searchParams] = useSearchParams();
  const navigate = useNavigate();
  const user = useUser();
  const signupOpen = useSignupOpen().data?.open === true;
  const next = safeNext(searchParams.get('next'));

  if (user.data) return <Navigate to={next} replace />;

  return (
    <AuthCard title="Sign in" lead="Benchmark HTTPS/1.1, HTTP/2, HTTP/3 and gRPC on real devices.">
      <LoginForm onSuccess={() => void navigate(next, { replace: true })} />
      <p className="muted small auth-links">
        <Link to="/forgot-password">Forgot your password?</Link>
        {signupOpen && (
          <>
            {' · '}
            <Link to="/signup">Create an organization</Link>
          </>
        )}
      </p>
    </AuthCard>
  );
}
