import { useNavigate } from 'react-router-dom';
import type { Me } from '@/lib/api-types';
import { useSelectOrganization } from '../api/accounts';

/** The organization this session acts for: a menu when the user belongs to several, its name otherwise. */
export function OrganizationSwitcher({ me }: { me: Me }) {
  const select = useSelectOrganization();
  const navigate = useNavigate();
  if (me.organizations.length < 2) return <>{me.organization.name}</>;
  return (
    <select
      aria-label="Organization"
      className="org-switcher"
      value={me.organization.slug}
      disabled={select.isPending}
      // Another organization's pages hold other ids: start again from its home.
      onChange={(event) => select.mutate(event.target.value, { onSuccess: () => void navigate('/') })}
    >
      {me.organizations.map((org) => (
        <option key={org.slug} value={org.slug}>
          {org.name} ({org.role})
        </option>
      ))}
    </select>
  );
}
