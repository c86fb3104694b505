// ESLint for the web client (backend/web): the recommended rules, browser globals, ES modules,
// and lines of at most 120 characters. protocol.js is generated from backend/protocol/messages.py
// by scripts/gen_protocol_js.py and checked against it by tests/web/test_protocol.py: not linted here.
// Run from the repository root: `make lint-web` (or `npm run lint` in this folder).
import js from "@eslint/js";
import globals from "globals";

export default [
  {
    files: ["backend/web/**/*.js"],
    ignores: ["backend/web/protocol.js"],
    ...js.configs.recommended,
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: globals.browser,
    },
    rules: {
      ...js.configs.recommended.rules,
      "max-len": ["error", { code: 120, ignoreUrls: true }],
    },
  },
];
