import type { ReactNode } from 'react';
import { formatDateTime } from '@/utils/format';
import type { PublicReport } from '../types';
import { StandInNotice } from '@/components/stand-in';
import { ReportMethodSection } from './report-method';
import '../reports.css';

type PublicReportViewProps = {
  report: PublicReport;
  /** The charts, verdict banner and effect sizes: the results feature, composed by the page. */
  renderResults: (report: PublicReport) => ReactNode;
  /** Download links (the offline file itself has none). */
  downloads?: { html: string; pdf: string } | null;
};

const OUTCOME_CLASS: Record<string, string> = {
  improvement: 'report-verdict-improvement',
  regression: 'report-verdict-regression',
  equivalent: 'report-verdict-equivalent',
  inconclusive: 'report-verdict-inconclusive',
};

/** A shared comparison's report: what /r/<token>, the offline HTML and the PDF show. */
export function PublicReportView({ report, renderResults, downloads }: PublicReportViewProps) {
  const outcome = report.verdict?.outcome ?? '';
  const tags = Object.entries(report.tags);
  return (
    <article className="stack report" aria-labelledby="report-title">
      <header className="page-header">
        <div>
          <p className="muted report-kicker">LatencyLab report</p>
          <h1 id="report-title">{report.name}</h1>
          <p className="muted">
            {report.preset ? `Preset ${report.preset}` : 'Custom spec'} · created {formatDateTime(report.created_at)}
            {report.finished_at && <> · finished {formatDateTime(report.finished_at)}</>} · status {report.status}
          </p>
          {tags.length > 0 && (
            <ul className="tag-list" aria-label="Tags">
              {tags.map(([key, value]) => (
                <li key={key} className="tag">
                  {key}: {value}
                </li>
              ))}
            </ul>
          )}
        </div>
        {downloads && (
          <div className="page-actions report-actions">
            <a className="button" href={downloads.html} download>
              Download HTML
            </a>
            <a className="button" href={downloads.pdf} download>
              Download PDF
            </a>
          </div>
        )}
      </header>
      <StandInNotice
        standIns={report.method.runs.filter((run) => run.stand_in).length}
        total={report.method.runs.length}
      />
      <p className={`report-verdict-line ${OUTCOME_CLASS[outcome] ?? ''}`} data-testid="report-verdict-line">
        {report.verdict_line}
      </p>
      <section aria-labelledby="report-results-heading" className="stack">
        <h2 id="report-results-heading">Results</h2>
        {report.results.groups.length === 0 && report.status !== 'finished' ? (
          <p className="muted">Results appear once the first runs report.</p>
        ) : (
          renderResults(report)
        )}
      </section>
      <ReportMethodSection method={report.method} />
      <footer className="muted report-footer">Report generated {formatDateTime(report.generated_at)}.</footer>
    </article>
  );
}

/** What a revoked, expired or unknown link shows. */
export function InvalidLinkView() {
  return (
    <div className="empty-state card report-invalid" role="alert">
      <h1>This link is no longer valid</h1>
      <p>The share link was revoked, it expired, or it never existed. Ask whoever sent it for a new one.</p>
    </div>
  );
}
