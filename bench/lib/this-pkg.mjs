// `node --import ./bench/lib/this-pkg.mjs ...`, or imported first: from here on `stepline`
// resolves to this checkout's pkg/ (bench/lib/this-pkg-hooks.mjs says why).
import { register } from 'node:module';

register('./this-pkg-hooks.mjs', import.meta.url);
