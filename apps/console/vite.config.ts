import { defineConfig } from 'vite'

// Everything is bundled into files under /console/assets/: no inline script or style, so the gateway's
// `default-src 'self'` Content-Security-Policy holds. JSX is compiled by Vite's own transformer for Preact.
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    target: 'es2022',
  },
})
