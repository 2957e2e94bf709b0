import { NavLink, Outlet } from 'react-router-dom';

/** The organization's settings pages share one sub-navigation, so the top bar needs one entry. */
export const SETTINGS_PAGES = [
  { to: '/network-profiles', label: 'Network profiles' },
  { to: '/tokens', label: 'API tokens' },
  { to: '/webhooks', label: 'Webhooks' },
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
