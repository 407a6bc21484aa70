export { authMigrations } from './migrations.js';
export { createTokenVerifier, signApiKey, secretKey, TokenError, type Claims, type TokenVerifier } from './jwt.js';
