// Test support for the storage package and the server's storage tests.
export { startFakeS3, type FakeS3 } from './fake-s3.js';
export { startTestBackend } from './test-backend.js';
