import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { PageHeader } from './page-header';

describe('PageHeader', () => {
  it('shows the title as the page heading, the description under it and the actions beside it', () => {
    render(
      <PageHeader title="Webhooks" actions={<button type="button">New</button>}>
        LatencyLab POSTs a <code>signed</code> event.
      </PageHeader>,
    );
    const banner = screen.getByRole('banner');
    expect(screen.getByRole('heading', { level: 1, name: 'Webhooks' })).toBeInTheDocument();
    expect(screen.getByText(/LatencyLab POSTs a/)).toHaveTextContent('LatencyLab POSTs a signed event.');
    expect(banner.lastElementChild).toEqual(screen.getByRole('button', { name: 'New' }));
  });

  it('leaves out the description when there is none', () => {
    const { container } = render(<PageHeader title="Organization" />);
    expect(container.querySelector('p')).toBeNull();
  });
});
