import { ShareLinksPage } from '@/features/reports/components/share-links-page';

export function SharesRoute() {
  return <ShareLinksPage />;
}
