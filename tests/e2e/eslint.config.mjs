// ESLint for the end-to-end tests (plain CommonJS with // @ts-check; `npm run typecheck` type-checks them).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["code-server/**"] },
  js.configs.recommended,
  {
    files: ["*.js"],
    languageOptions: {
      sourceType: "commonjs",
      ecmaVersion: 2022,
      // page.evaluate() callbacks run in the browser
      globals: { ...globals.node, ...globals.browser },
    },
    rules: { curly: "error", eqeqeq: ["error", "always"], "no-var": "error", "prefer-const": "error" },
  },
];
