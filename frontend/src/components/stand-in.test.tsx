import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { StandInNotice, StandInTag } from './stand-in';

describe('phone simulator stand-ins', () => {
  it('tags a stand-in device and says why on hover; a real device gets nothing', () => {
    const { container, rerender } = render(<StandInTag standIn={null} />);
    expect(container).toBeEmptyDOMElement();
    rerender(<StandInTag standIn="jvm" />);
    const tag = screen.getByTestId('stand-in-tag');
    expect(tag).toHaveTextContent('simulated phone (JVM stand-in)');
    expect(tag).toHaveAttribute('title', expect.stringContaining('not a phone'));
  });

  it.each([
    [1, 1, 'The device of this comparison was'],
    [3, 3, 'All 3 devices of this comparison were'],
    [1, 3, '1 of 3 devices of this comparison was'],
    [2, 3, '2 of 3 devices of this comparison were'],
  ])('a notice when %i of %i devices were stand-ins', (standIns, total, words) => {
    render(<StandInNotice standIns={standIns} total={total} />);
    const notice = screen.getByRole('note');
    expect(notice).toHaveTextContent(words);
    expect(notice).toHaveTextContent("Read these numbers as the lab host's.");
  });

  it('no notice when every device was a phone', () => {
    const { container } = render(<StandInNotice standIns={0} total={2} />);
    expect(container).toBeEmptyDOMElement();
  });
});
