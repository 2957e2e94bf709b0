import { Link, NavLink, Outlet, useLocation, useNavigate } from 'react-router-dom';
import { useUser } from '@/features/auth/api/get-me';
import { useLogout } from '@/features/auth/api/logout';
import { OrganizationSwitcher } from '@/features/auth/components/organization-switcher';
import { ProtectedRoute } from '@/features/auth/components/protected-route';
import { SETTINGS_PAGES } from './settings-layout';

export function AppLayout() {
  return (
    <ProtectedRoute>
      <div className="shell">
        <TopBar />
        <main className="content" id="main">
          <Outlet />
        </main>
      </div>
    </ProtectedRoute>
  );
}

/** One entry for the settings pages (network profiles, API tokens, webhooks), active on any of them. */
function SettingsLink() {
  const { pathname } = useLocation();
  const current = SETTINGS_PAGES.some((page) => pathname === page.to || pathname.startsWith(`${page.to}/`));
  return (
    <Link to={SETTINGS_PAGES[0].to} className={current ? 'active' : undefined} aria-current={current ? 'true' : undefined}>
      Settings
    </Link>
  );
}

function TopBar() {
  const user = useUser();
  const logout = useLogout();
  const navigate = useNavigate();
  return (
    <header className="topbar">
      <div className="topbar-inner">
        <NavLink to="/comparisons" className="brand" end>
          <img src="/favicon.svg" alt="" width={24} height={24} />
          LatencyLab
        </NavLink>
        <nav aria-label="Main" className="nav">
          <NavLink to="/" end>
            Home
          </NavLink>
          <NavLink to="/comparisons" end>
            Comparisons
          </NavLink>
          {/* Viewers read only: the server would refuse what this page makes. */}
          {user.data?.role !== 'viewer' && <NavLink to="/comparisons/new">New comparison</NavLink>}
          <NavLink to="/trends">Trends</NavLink>
          <NavLink to="/devices">Devices</NavLink>
          <SettingsLink />
        </nav>
        <div className="topbar-user">
          {user.data && (
            <span className="muted">
              {user.data.username} · <OrganizationSwitcher me={user.data} />
            </span>
          )}
          <button
            type="button"
            className="button button-ghost"
            onClick={() => logout.mutate(undefined, { onSuccess: () => void navigate('/login') })}
            disabled={logout.isPending}
          >
            Sign out
          </button>
        </div>
      </div>
    </header>
  );
}
