// Number and name formatting for the panel: one place, so every view says
// "1.2 s" and "3.4k tok" the same way.

/** `740 ms`, `3.4 s`, `2 m 05 s`; an em dash when unknown. */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  if (Math.abs(ms) < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (Math.abs(s) < 60) return `${s.toFixed(s < 10 ? 2 : 1)} s`;
  const m = Math.floor(s / 60);
  return `${m} m ${String(Math.round(s - m * 60)).padStart(2, '0')} s`;
}

/** `950`, `3.5k`, `1.2M`. */
export function count(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '—';
  if (Math.abs(n) < 1000) return String(n);
  if (Math.abs(n) < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** The class name without its PHP namespace: `…\\Criteria\\StepsLimit` → `StepsLimit`. */
export function shortClass(name: string | null | undefined): string {
  if (!name) return '—';
  const cut = name.lastIndexOf('\\');
  return cut >= 0 ? name.slice(cut + 1) : name;
}

/** `14:02:13.250` from an ISO timestamp (the producer's local time is shown as sent). */
export function clock(iso: string | null | undefined): string {
  if (!iso) return '—';
  const m = /T(\d\d:\d\d:\d\d)(\.\d{1,3})?/.exec(iso);
  return m ? `${m[1]}${m[2] ?? ''}` : iso;
}

/** At most `max` characters of a value shown inline, with an ellipsis. */
export function clip(value: unknown, max = 160): string {
  const text = typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value);
  if (text === undefined) return '';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** `1 step`, `2 steps`. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString('en')} ${n === 1 ? one : many}`;
}
