// Module resolution inside readme.test.mjs: the packages named in `data` (`pusher-js`,
// `react`) resolve to the test's stand-ins wherever they are imported from, so that
// stepline/react, @laravel/echo-react and @laravel/echo-vue, imported by a README
// example from the real node_modules, meet the same ones the example does.
let replaced = {};

export async function initialize(data) {
  replaced = data;
}

export async function resolve(specifier, context, next) {
  const url = replaced[specifier];
  return url ? { url, format: 'module', shortCircuit: true } : next(specifier, context);
}
