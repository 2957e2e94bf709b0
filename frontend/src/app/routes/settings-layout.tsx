import { NavLink, Outlet } from 'react-router-dom';

/** The organization's pages (members' secrets, profiles, tokens, webhooks, share links) share one
 * sub-navigation, so the top bar needs one entry and fits on one line. */
export const SETTINGS_PAGES = [
  { to: '/organization', label: 'Organization' },
  { to: '/members', label: 'Members' },
  { to: '/network-profiles', label: 'Network profiles' },
  { to: '/tokens', label: 'API tokens' },
  { to: '/webhooks', label: 'Webhooks' },
  { to: '/shares', label: 'Share links' },
  { to: '/usage', label: 'Usage' },
  { to: '/audit-log', label: 'Audit log' },
] as const;

export function SettingsLayout() {
  return (
    <div className="stack">
      <nav aria-label="Settings" className="subnav">
        {SETTINGS_PAGES.map((page) => (
          <NavLink key={page.to} to={page.to}>
            {page.label}
          </NavLink>
        ))}
      </nav>
      <Outlet />
    </div>
  );
}
