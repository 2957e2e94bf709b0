/**
 * The offline report (GET …/report.html): a second build entry (vite.standalone.config.ts)
 * bundled into one script with Plotly, which the backend inlines into a single HTML file with
 * the report document as window.__LATENCYLAB_REPORT__. The same components as /r/:token draw it.
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { PublicReportView } from '@/features/reports/components/public-report';
import type { PublicReport } from '@/features/reports/types';
import { ReportResults } from '@/app/report-results';
import './styles.css';

declare global {
  interface Window {
    __LATENCYLAB_REPORT__?: PublicReport;
  }
}

const root = document.getElementById('root');
const report = window.__LATENCYLAB_REPORT__;
if (!root) throw new Error('the report page has no #root element');

createRoot(root).render(
  <StrictMode>
    <main className="content standalone-report" id="main">
      {report ? (
        <PublicReportView report={report} renderResults={(data) => <ReportResults report={data} />} />
      ) : (
        <p role="alert" className="alert alert-error">
          This file carries no report data.
        </p>
      )}
    </main>
  </StrictMode>,
);
