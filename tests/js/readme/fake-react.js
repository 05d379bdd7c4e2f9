// The part of React the README's examples and stepline/react call, with React's
// contract: hooks in call order per component, effects after the render (layout, then
// passive) with their cleanups, a state change or a changed external store rendering
// again, `subscribe` and `getSnapshot` called as plain functions (unbound),
// `getSnapshot` returning the same value twice in a row unless the store changed.
// Written into the README test's folder as the package `react`; readme.test.mjs
// resolves `react` to it from everywhere (stepline/react, @laravel/echo-react too).
export const __fake = { subscriptions: 0, notifications: 0, renders: 0 };

// A hook called as a plain function (outside `__mount`), as the older examples do,
// keeps the one store subscription it made last.
let current = null;
let rendering = null;

/** Renders `Component(props)` as a root: again on each update; `unmount()` runs the cleanups. */
export function __mount(Component, props = {}) {
  const instance = { hooks: [], layout: [], passive: [], output: null, dirty: false, busy: false, mounted: true, index: 0 };
  instance.update = () => {
    if (!instance.mounted) return;
    instance.dirty = true;
    if (instance.busy) return;
    instance.busy = true;
    try {
      for (let round = 0; instance.dirty; round++) {
        if (round > 50) throw new Error('Too many re-renders');
        instance.dirty = false;
        instance.index = 0;
        rendering = instance;
        __fake.renders += 1;
        try {
          instance.output = Component(props);
        } finally {
          rendering = null;
        }
        for (const queue of ['layout', 'passive']) {
          const effects = instance[queue];
          instance[queue] = [];
          for (const hook of effects) {
            hook.cleanup?.();
            const cleanup = hook.create();
            hook.cleanup = typeof cleanup === 'function' ? cleanup : null;
          }
        }
      }
    } finally {
      instance.busy = false;
    }
  };
  instance.update();
  return {
    get output() {
      return instance.output;
    },
    unmount() {
      instance.mounted = false;
      for (const hook of instance.hooks) hook.cleanup?.();
    },
  };
}

function hook(init) {
  if (!rendering) throw new Error('Invalid hook call: hooks run inside a component (__mount)');
  const i = rendering.index++;
  rendering.hooks[i] ??= init();
  return rendering.hooks[i];
}

const sameDeps = (a, b) => a !== undefined && b !== undefined && a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

export function useState(initial) {
  const instance = rendering;
  const h = hook(() => ({ value: typeof initial === 'function' ? initial() : initial }));
  h.set ??= (next) => {
    const value = typeof next === 'function' ? next(h.value) : next;
    if (Object.is(value, h.value)) return;
    h.value = value;
    instance.update();
  };
  return [h.value, h.set];
}

export function useRef(initial) {
  return hook(() => ({ current: initial }));
}

export function useMemo(create, deps) {
  const h = hook(() => ({}));
  if (!sameDeps(h.deps, deps)) {
    h.value = create();
    h.deps = deps;
  }
  return h.value;
}

export function useCallback(callback, deps) {
  return useMemo(() => callback, deps);
}

function effect(queue, create, deps) {
  const h = hook(() => ({}));
  if (sameDeps(h.deps, deps)) return;
  h.deps = deps;
  h.create = create;
  rendering[queue].push(h);
}

export function useEffect(create, deps) {
  effect('passive', create, deps);
}

export function useLayoutEffect(create, deps) {
  effect('layout', create, deps);
}

function subscribeCounted(subscribe, onChange) {
  __fake.subscriptions += 1;
  const unsubscribe = subscribe(() => {
    __fake.notifications += 1;
    onChange();
  });
  if (typeof unsubscribe !== 'function') throw new TypeError('subscribe must return an unsubscribe function');
  return unsubscribe;
}

export function useSyncExternalStore(subscribe, getSnapshot) {
  const snapshot = getSnapshot();
  if (getSnapshot() !== snapshot) throw new Error('The result of getSnapshot should be cached to avoid an infinite loop');
  if (!rendering) {
    __fake.renders += 1;
    if (current?.subscribe !== subscribe) {
      current?.unsubscribe();
      current = { subscribe, unsubscribe: subscribeCounted(subscribe, () => {}) };
    }
    return snapshot;
  }
  const instance = rendering;
  const h = hook(() => ({}));
  h.snapshot = snapshot;
  h.getSnapshot = getSnapshot;
  effect('passive', () => {
    const changed = () => {
      if (h.getSnapshot() !== h.snapshot) instance.update();
    };
    const unsubscribe = subscribeCounted(subscribe, changed);
    changed(); // the store may have changed between the render and the subscription
    return unsubscribe;
  }, [subscribe]);
  return snapshot;
}
