// Vite turns CSS imports into <style> on the page.
declare module '*.css';
/** A stylesheet as text (Vite's `?inline`), for the overlay's shadow root. */
declare module '*.css?inline' { const css: string; export default css; }
