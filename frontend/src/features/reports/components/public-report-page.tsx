import type { ReactNode } from 'react';
import { Spinner } from '@/components/spinner';
import { ApiError } from '@/lib/api-client';
import { publicReportDownloads, usePublicReport } from '../api/public-report';
import type { PublicReport } from '../types';
import { InvalidLinkView, PublicReportView } from './public-report';

type PublicReportPageProps = { token: string; renderResults: (report: PublicReport) => ReactNode };

/** /r/:token, without signing in. */
export function PublicReportPage({ token, renderResults }: PublicReportPageProps) {
  const report = usePublicReport(token);
  return (
    <div className="shell public-shell">
      <header className="topbar">
        <div className="topbar-inner">
          <span className="brand">
            <img src="/favicon.svg" alt="" width={24} height={24} />
            LatencyLab
          </span>
        </div>
      </header>
      <main className="content" id="main">
        {report.isPending ? (
          <Spinner label="Loading report" />
        ) : report.isError ? (
          report.error instanceof ApiError && report.error.status === 404 ? (
            <InvalidLinkView />
          ) : (
            <p role="alert" className="alert alert-error">
              Could not load the report: {report.error.message}
            </p>
          )
        ) : (
          <PublicReportView
            report={report.data}
            renderResults={renderResults}
            downloads={publicReportDownloads(token)}
          />
        )}
      </main>
    </div>
  );
}
