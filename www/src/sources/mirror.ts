// A Session of the panel's own, fed with the lines of a run recorded elsewhere
// (the app's Session in the overlay, the inspected page's in the extension):
// `toRecording()` is append-only, so each call hands over only the new lines;
// snapshot lines are reconciled where they stand, header lines are skipped.
import type { Session } from 'stepline/devtools';
import type { Panel } from '../panel';
import { reconcileAt, special } from './recording';

/**
 * Feeds `lines` (recording lines the mirror has not read yet) to `mirror`;
 * returns whether one of them was a snapshot line (a final state, reconciled).
 *
 * @example
 * const lines = app.toRecording().split('\n').filter(Boolean);
 * feedLines(panel, mirror, lines.slice(fed));
 * fed = lines.length;
 */
export function feedLines(panel: Panel, mirror: Session, lines: readonly string[]): boolean {
  let snapshot = false;
  let batch: string[] = [];
  const flush = () => {
    if (batch.length > 0) mirror.ingestJsonl(batch.join('\n'));
    batch = [];
  };
  for (const line of lines) {
    const found = line.trim() === '' ? null : special(line);
    if (found?.snapshotLine) {
      flush();
      reconcileAt(panel, mirror, found.snapshotLine);
      snapshot = true;
    } else if (!found) {
      batch.push(line);
    }
  }
  flush();
  return snapshot;
}
