import { WebhooksPage } from '@/features/webhooks/components/webhooks-page';

export function WebhooksRoute() {
  return <WebhooksPage />;
}
