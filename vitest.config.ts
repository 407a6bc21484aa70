import { defineConfig } from 'vitest/config';
import projects from './vitest.workspace.js';

export default defineConfig({
  test: {
    projects,
    globalSetup: ['./packages/database/src/testing/global-setup.ts'],
  },
});
