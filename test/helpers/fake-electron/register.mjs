// `node --import ./register.mjs dist/electron/main.mjs`: runs the built main process with the
// `electron` import resolved to fake-electron.mjs (Electron's binary cannot be downloaded here).
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
