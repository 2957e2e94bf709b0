import { describe, expect, it } from 'vitest';
import { flattenFieldErrors, messagesFor } from './field-errors';

describe('flattenFieldErrors', () => {
  it('gives nested DRF field maps dotted paths', () => {
    const errors = flattenFieldErrors({
      arms: { '1': { protocol: ['"h4" is not a valid choice.'] } },
      blocks: ['Ensure this value is less than or equal to 50.'],
    });
    expect(errors).toEqual([
      { path: 'arms.1.protocol', message: '"h4" is not a valid choice.' },
      { path: 'blocks', message: 'Ensure this value is less than or equal to 50.' },
    ]);
  });

  it('indexes list-serializer errors and skips the valid items', () => {
    const errors = flattenFieldErrors({ arms: [{}, { label: ['This field is required.'] }] });
    expect(errors).toEqual([{ path: 'arms.1.label', message: 'This field is required.' }]);
  });

  it('keeps {"detail": …} and bare strings', () => {
    expect(flattenFieldErrors({ detail: 'Not allowed.' })).toEqual([{ path: 'detail', message: 'Not allowed.' }]);
    expect(messagesFor(flattenFieldErrors({ name: 'Too long.' }), 'name')).toEqual(['Too long.']);
    expect(flattenFieldErrors(null)).toEqual([]);
  });
});
