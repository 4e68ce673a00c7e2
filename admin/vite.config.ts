import { defineConfig, defaultClientConditions } from 'vite';
import react from '@vitejs/plugin-react';

// The SDK's `@siteplatform/source` export condition points at its TypeScript sources, so the admin
// builds whether or not sdk/dist has been built (the SDK README, "Inside the repository").
export default defineConfig({
  plugins: [react()],
  resolve: { conditions: ['@siteplatform/source', ...defaultClientConditions] },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Hashed file names under /assets/: the server caches them for a year (src/admin-app/).
    assetsDir: 'assets',
    reportCompressedSize: true,
    // dist/.vite/manifest.json: which chunks each screen loads (the first screen's size in docs/performance.md).
    manifest: true,
    chunkSizeWarningLimit: 600,
  },
  server: {
    // `npm run dev -w admin` beside `npm start`: the API calls go to the platform process.
    proxy: { '/tenant-api': 'http://127.0.0.1:8080', '/site-api': 'http://127.0.0.1:8080', '/healthz': 'http://127.0.0.1:8080' },
  },
});
