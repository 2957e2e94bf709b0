import { Link } from 'react-router-dom';
import type { Preset } from '@/lib/api-types';

type PresetFieldsetProps = {
  presets: Preset[];
  /** '' when starting from scratch. */
  presetName: string;
  /** The name of the comparison this is a copy of, while editing a copy. */
  copyOf: string | undefined;
  onSelect: (preset: Preset) => void;
  onStartFromScratch: () => void;
};

/** Where a comparison starts: a preset's card, from scratch, or (another page) a HAR recording. */
export function PresetFieldset({ presets, presetName, copyOf, onSelect, onStartFromScratch }: PresetFieldsetProps) {
  return (
    <fieldset className="fieldset">
      <legend>Preset</legend>
      <div className="preset-grid" role="radiogroup" aria-label="Preset">
        {presets.map((candidate) => (
          <label
            key={candidate.name}
            className={candidate.name === presetName ? 'preset-card preset-card-selected' : 'preset-card'}
            data-testid={`preset-${candidate.name}`}
          >
            <input
              type="radio"
              name="preset"
              value={candidate.name}
              checked={candidate.name === presetName}
              onChange={() => onSelect(candidate)}
              className="visually-hidden"
              aria-labelledby={`preset-${candidate.name}-title`}
              aria-describedby={`preset-${candidate.name}-description`}
            />
            <span className="preset-title" id={`preset-${candidate.name}-title`}>
              {candidate.title}
            </span>
            <span className="preset-name">{candidate.name}</span>
            <span className="preset-description" id={`preset-${candidate.name}-description`}>
              {candidate.description}
            </span>
          </label>
        ))}
      </div>
      <p className="preset-start">
        {copyOf ? (
          <span className="muted" role="status">
            Editing a copy of “{copyOf}”{presetName ? ` (preset ${presetName})` : ''}.{' '}
          </span>
        ) : !presetName ? (
          <span className="muted">Starting from scratch. </span>
        ) : null}
        <button type="button" className="button button-ghost" onClick={onStartFromScratch}>
          Start from scratch
        </button>{' '}
        or <Link to="/comparisons/new/har">import a HAR recording</Link> as your own request list.
      </p>
    </fieldset>
  );
}
