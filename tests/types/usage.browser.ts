// Type test for the browser entry: the default export `init` must be awaited first.
import init, { initSync, version } from 'stepline';

await init();
await init({ module_or_path: new URL('https://example.invalid/stepline_bg.wasm') });
initSync({ module: new Uint8Array() });
const v: string = version();

export { v };
