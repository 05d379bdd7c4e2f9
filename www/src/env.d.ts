// Vite turns CSS imports into <style> on the page.
declare module '*.css';
