import { useUser } from '@/features/auth/api/get-me';
import { OrganizationPage } from '@/features/organization/components/organization-page';

export function OrganizationRoute() {
  const user = useUser();
  return <OrganizationPage me={user.data} />;
}
