import { Link, Navigate, useNavigate, useParams } from 'react-router-dom';
import { useSignupOpen } from '@/features/auth/api/accounts';
import { useUser } from '@/features/auth/api/get-me';
import { AcceptInvitation } from '@/features/auth/components/accept-invitation';
import { AuthCard } from '@/features/auth/components/auth-card';
import { ForgotPasswordForm, ResetPasswordForm } from '@/features/auth/components/password-reset-forms';
import { SignupForm } from '@/features/auth/components/signup-form';

export function SignupRoute() {
  const navigate = useNavigate();
  const user = useUser();
  const availability = useSignupOpen();
  if (user.data) return <Navigate to="/" replace />;
  if (availability.data?.open === false) {
    return (
      <AuthCard title="Sign-up is closed">
        <p>This server adds people by invitation only: ask an owner or admin of your organization to invite you.</p>
        <p className="muted small">
          Have an account? <Link to="/login">Sign in</Link>
        </p>
      </AuthCard>
    );
  }
  return (
    <AuthCard title="Create your organization" lead="Benchmark HTTPS/1.1, HTTP/2, HTTP/3 and gRPC on real devices.">
      <SignupForm onSuccess={() => void navigate('/', { replace: true })} />
      <p className="muted small">
        Have an account? <Link to="/login">Sign in</Link>
      </p>
    </AuthCard>
  );
}

export function AcceptInvitationRoute() {
  const { token = '' } = useParams();
  const navigate = useNavigate();
  return (
    <AuthCard title="Join an organization">
      <AcceptInvitation token={token} onAccepted={() => void navigate('/', { replace: true })} />
    </AuthCard>
  );
}

export function ForgotPasswordRoute() {
  return (
    <AuthCard title="Reset your password" lead="We email a link to the address of your account.">
      <ForgotPasswordForm />
      <p className="muted small">
        <Link to="/login">Back to sign in</Link>
      </p>
    </AuthCard>
  );
}

export function ResetPasswordRoute() {
  const { uid = '', token = '' } = useParams();
  return (
    <AuthCard title="Choose a new password">
      <ResetPasswordForm uid={uid} token={token} />
      <p className="muted small">
        <Link to="/login">Sign in</Link>
      </p>
    </AuthCard>
  );
}
