// Type test for CommonJS consumers (`require` condition -> index.d.cts).
import stepline = require('stepline');

const v: string = stepline.version();
const isStepline = (error: unknown): error is stepline.SteplineError => error instanceof stepline.SteplineError;

export = { v, isStepline };
