import { useState } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { resultsQueryKey } from '@/features/results/api/get-results';
import { verdictQueryKey } from '@/features/results/api/get-verdict';
import { ResultsPanel } from '@/features/results/components/results-panel';
import type { PublicReport } from '@/features/reports/types';

/**
 * The comparison page's results (verdict banner, effect sizes, every chart) drawn from a
 * report document instead of the signed-in API: the results feature reads its queries from
 * a client of its own, filled with the report's stored results and verdict and never
 * refetched. The public page, the offline HTML and the PDF all render through here.
 */
export function ReportResults({ report }: { report: PublicReport }) {
  const [client] = useState(() => {
    const seeded = new QueryClient({
      defaultOptions: {
        queries: { staleTime: Infinity, gcTime: Infinity, retry: false, refetchOnWindowFocus: false, refetchOnMount: false },
      },
    });
    const id = report.results.comparison;
    seeded.setQueryData(resultsQueryKey(id), report.results);
    if (report.verdict) seeded.setQueryData(verdictQueryKey(id), report.verdict);
    return seeded;
  });
  return (
    <QueryClientProvider client={client}>
      <ResultsPanel comparisonId={report.results.comparison} live={false} shared />
    </QueryClientProvider>
  );
}
