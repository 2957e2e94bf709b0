/** The phone simulator's phones (make up's demo lab, the device-farm tests) are not phones: the
 * Kotlin harness core runs on the lab host's JVM behind an emulated link in their place. The
 * service marks them with `stand_in` ("jvm"), and every page and report that names such a
 * device says so, so that nobody reads a stand-in's numbers as a phone's. */

const EXPLANATION =
  "The phone simulator's JVM stand-in, not a phone: the harness ran on the lab host's Java VM behind an " +
  'emulated link, so its numbers describe the lab host.';

/** A tag beside a device's name. */
export function StandInTag({ standIn }: { standIn: string | null | undefined }) {
  if (!standIn) return null;
  return (
    <span className="tag tag-stand-in" title={EXPLANATION} data-testid="stand-in-tag">
      simulated phone ({standIn.toUpperCase()} stand-in)
    </span>
  );
}

/** A notice above a comparison or report whose runs were all or partly on stand-ins. */
export function StandInNotice({ standIns, total }: { standIns: number; total: number }) {
  if (standIns === 0) return null;
  const which =
    standIns < total ? `${standIns} of ${total} devices` : total === 1 ? 'The device' : `All ${total} devices`;
  const verb = standIns === 1 ? 'was' : 'were';
  return (
    <p role="note" className="alert alert-warning" data-testid="stand-in-notice">
      <strong>Simulated phones.</strong> {which} of this comparison {verb}{' '}
      the phone simulator&apos;s JVM stand-in: the harness ran on the lab host&apos;s Java VM behind an emulated link,
      not on a phone. Read these numbers as the lab host&apos;s.
    </p>
  );
}
