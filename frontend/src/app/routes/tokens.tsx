import { useUser } from '@/features/auth/api/get-me';
import { ApiTokensPage } from '@/features/tokens/components/api-tokens-page';

export function TokensRoute() {
  const user = useUser();
  return <ApiTokensPage me={user.data} />;
}
