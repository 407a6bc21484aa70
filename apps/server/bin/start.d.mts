// bin/start.mjs runs the server when imported; it exports nothing.
export {};
