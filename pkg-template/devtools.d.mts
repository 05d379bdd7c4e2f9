// The API is declared once, by wasm-bindgen, from the Rust sources.
export * from './devtools-node/stepline.js';

/**
 * In Node the wasm is loaded with the module: `init()` resolves at once. It is here so
 * that code written for the browser entry runs unchanged; its argument is ignored.
 *
 * @example
 * ```js
 * import init, { version } from 'stepline/devtools';
 * await init();
 * console.log(version());
 * ```
 */
export default function init(input?: unknown): Promise<void>;
/** In Node, does nothing (the wasm is loaded with the module); its argument is ignored. */
export function initSync(input?: unknown): void;
