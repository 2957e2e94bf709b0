import { useParams } from 'react-router-dom';
import { PublicReportPage } from '@/features/reports/components/public-report-page';
import { ReportResults } from '../report-results';

/** /r/:token: a shared report, outside the signed-in layout. */
export function PublicReportRoute() {
  const { token = '' } = useParams();
  return <PublicReportPage token={token} renderResults={(report) => <ReportResults report={report} />} />;
}
