// Module resolve hook (node:module register) for scripts/bench-check.mjs and the memory probes
// it starts: `stepline` and `stepline/<subpath>` resolve to this checkout's pkg/, through the
// package's own exports map (a self-reference from pkg/package.json), whatever
// node_modules/stepline links to. In a plain clone the build links node_modules/stepline to
// ../pkg, so nothing changes; in a git worktree whose node_modules is another checkout's, the
// link leads to that checkout's pkg/, and the bench layer would measure someone else's build.
const fromPkg = new URL('../../pkg/package.json', import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'stepline' || specifier.startsWith('stepline/')) {
    return nextResolve(specifier, { ...context, parentURL: fromPkg });
  }
  return nextResolve(specifier, context);
}
