// Shared by examples/react and examples/vue.
// What the page derives from an execution view for display only; the view itself is
// the core's (stepline never re-derives a run in the UI).

/** The steps in order, with a placeholder row for each step number not received yet. */
export function stepRows(execution) {
  const rows = execution.steps.map((step) => ({ number: step.number, step }));
  for (const number of execution.missing_steps) rows.push({ number, missing: true });
  return rows.sort((a, b) => a.number - b.number);
}

/** Why the run stopped, in the producer's words: each one the view has, labelled. */
export function stopReasons(execution) {
  const continuation = execution.steps.at(-1)?.continuation;
  return [
    ['end reason', execution.end_reason],
    ['error', execution.error_message],
    ['continuation', continuation && !continuation.should_continue ? continuation.stop_reason : null],
  ].filter(([, value]) => value);
}
