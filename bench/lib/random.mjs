// The seeded randomness every bench generator shares, so the same options
// give the same runs and states on every machine.

/** mulberry32: a small, fast, seeded PRNG; returns floats in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Words for streamed text, mixing 1- to 4-byte UTF-8 characters as real answers do. */
export const WORDS = ['the', 'agent', 'searched', 'for', 'weather', 'in', 'Paris', 'and', 'found', 'three', 'sources',
  'temperature', 'is', 'rising', 'results', 'summarised', 'below', 'zażółć', 'gęślą', 'jaźń', '天气', '晴朗', '🌤️', '✅'];
