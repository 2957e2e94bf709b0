import { PageHeader } from '@/components/page-header';
import type { Me } from '@/lib/api-types';
import { SecretsSection } from './secrets-section';

const MANAGER_ROLES = new Set(['owner', 'admin']);

/** The organization's settings: its secrets (more sections as they come). */
export function OrganizationPage({ me }: { me: Me | null | undefined }) {
  const canManage = MANAGER_ROLES.has(me?.role ?? '');
  return (
    <div className="stack">
      <PageHeader title="Organization">
        {me && (
          <>
            Settings of {me.organization.name} (<code>{me.organization.slug}</code>)
            {me.role && <>; you are {me.role === 'admin' || me.role === 'owner' ? 'an' : 'a'} {me.role}</>}.
          </>
        )}
      </PageHeader>
      <section aria-labelledby="secrets-heading" className="stack-tight">
        <h2 id="secrets-heading">Secrets</h2>
        <SecretsSection canManage={canManage} />
      </section>
    </div>
  );
}
