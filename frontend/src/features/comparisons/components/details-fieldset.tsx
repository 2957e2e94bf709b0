import { FieldMessages, messagesIdOf } from '@/components/field-messages';
import type { Preset } from '@/lib/api-types';
import type { FieldError } from '@/lib/field-errors';
import { WorkloadFieldset } from './builder-fieldsets';
import { PathsField } from './paths-field';
import {
  CONCURRENCY_KINDS,
  CUSTOM_FILES,
  CUSTOM_PATHS,
  WORKLOAD_FIELDS,
  defaultName,
  type SpecDraft,
  type WorkloadKind,
} from './spec-draft';
import { ConcurrencyField, SeriesFields } from './workload-shape-fields';

// Where the server reports a problem with the custom paths field, and with the downloads field.
const PATH_FIELDS = ['workload.object_paths', 'workload.path'];
const FILE_FIELDS = ['workload.file_paths'];

type DetailsFieldsetProps = {
  draft: SpecDraft;
  preset: Preset | undefined;
  presetName: string;
  update: (patch: Partial<SpecDraft>) => void;
  /** Every message the form shows, for those no field of this fieldset shows by its path. */
  shown: FieldError[];
  /** The form's messages for a field path and anything below it. */
  messages: (path: string) => string[];
};

/** The comparison's name, its blocks, and its workload: what each run requests, and where. */
export function DetailsFieldset({ draft, preset, presetName, update, shown, messages }: DetailsFieldsetProps) {
  const kind = draft.workloadKind;
  const series = kind === 'series';
  const customPaths = CUSTOM_PATHS[kind];
  const customFiles = CUSTOM_FILES[kind];
  const messagesAt = (fields: string[]) =>
    shown.filter((error) => fields.some((field) => error.path.startsWith(field))).map((error) => error.message);
  const nameMessages = messages('name');
  const blocksMessages = messages('blocks');
  return (
    <fieldset className="fieldset">
      <legend>Details</legend>
      <div className="field">
        <label htmlFor="spec-name">Name (optional)</label>
        <input
          id="spec-name"
          value={draft.name}
          placeholder={defaultName(preset)}
          onChange={(event) => update({ name: event.target.value })}
          aria-invalid={nameMessages.length > 0 || undefined}
          aria-describedby={messagesIdOf('name', nameMessages)}
        />
        <FieldMessages id="name-error" messages={nameMessages} />
      </div>
      <div className="field-row">
        <div className="field">
          <label htmlFor="spec-blocks">Blocks</label>
          <input
            id="spec-blocks"
            value={draft.blocks}
            onChange={(event) => update({ blocks: event.target.value })}
            aria-invalid={blocksMessages.length > 0 || undefined}
            aria-describedby={messagesIdOf('blocks', blocksMessages)}
          />
          <p className="hint">
            Randomized interleaved blocks (ABBA) per run, or run until decided: a range such as 6–24 (more blocks only
            while the verdict is undecided) or auto.
          </p>
          <FieldMessages id="blocks-error" messages={blocksMessages} />
        </div>
        {series && <SeriesFields draft={draft} update={update} messages={messages} />}
        {CONCURRENCY_KINDS.includes(kind) && <ConcurrencyField draft={draft} update={update} messages={messages} />}
      </div>
      <WorkloadFieldset draft={draft} update={update} messages={messages} presetName={presetName} />
      {customPaths && (
        <PathsField
          id="spec-paths"
          ask={customPaths}
          hint={`${customPaths.hint} Give each arm the endpoint of one of your builds under Arms.`}
          multiline={series}
          value={draft.paths}
          onChange={(paths) => update({ paths })}
          messages={messagesAt(PATH_FIELDS)}
        />
      )}
      {customFiles && (
        <PathsField
          id="spec-file-paths"
          ask={customFiles}
          hint={customFiles.hint}
          multiline
          value={draft.filePaths}
          onChange={(filePaths) => update({ filePaths })}
          messages={messagesAt(FILE_FIELDS)}
        />
      )}
      <FieldMessages id="workload-error" messages={otherWorkloadMessages(shown, kind)} />
    </fieldset>
  );
}

/** The workload's messages that no field above shows: about the workload as a whole, say. */
function otherWorkloadMessages(shown: FieldError[], kind: WorkloadKind): string[] {
  return shown
    .filter(
      (error) =>
        (error.path === 'workload' || error.path.startsWith('workload.')) &&
        !error.path.startsWith('workload.periods') &&
        !error.path.startsWith('workload.repetitions') &&
        !error.path.startsWith('workload.concurrency') &&
        !WORKLOAD_FIELDS[kind].some((field) => error.path.startsWith(`workload.${field.key}`)) &&
        !error.path.startsWith('workload.requests') &&
        ![...PATH_FIELDS, ...FILE_FIELDS].some((field) => error.path.startsWith(field)),
    )
    .map((error) => error.message);
}
