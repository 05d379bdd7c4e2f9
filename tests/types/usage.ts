// Type test: compiles only if the published declarations describe the API as used
// here. Checked by `tsc --noEmit` under Node (tsconfig.json) and browser/bundler
// (tsconfig.browser.json) resolution, both through the package's exports map.
import { SteplineError, version } from 'stepline';
import type { SteplineErrorCode } from 'stepline';

const v: string = version();

function describe(error: unknown): string {
  if (error instanceof SteplineError) {
    const code: SteplineErrorCode = error.code;
    const path: string | null = error.path;
    const message: string = error.message;
    return `${code} at ${path ?? '(input)'}: ${message}`;
  }
  return String(error);
}

// @ts-expect-error: codes are a closed union, not any string
const bogus: SteplineErrorCode = 'no_such_code';

// @ts-expect-error: the error class is registered internally and is not part of the API
import { __registerErrorClass } from 'stepline';

export { v, describe, bogus, __registerErrorClass };
