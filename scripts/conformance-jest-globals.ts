// Setup file of the conformance runs: the suites are written for Jest; Vitest's `vi` offers the same mocks and
// timers under Jest's names.
import { vi } from 'vitest';

(globalThis as unknown as { jest: typeof vi }).jest = vi;
