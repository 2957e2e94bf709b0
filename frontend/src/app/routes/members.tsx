import { useUser } from '@/features/auth/api/get-me';
import { MembersPage } from '@/features/members/components/members-page';

export function MembersRoute() {
  const user = useUser();
  return <MembersPage me={user.data} />;
}
