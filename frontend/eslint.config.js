// ESLint (flat config): typescript-eslint's type-aware recommended rules, React hooks,
// and the feature boundaries of the bulletproof-react layout (frontend/README.md, "Layout"):
//   src/app      — routes and providers; may import anything below it
//   src/features — one folder per feature; a feature never imports another feature or the app
//                  (pages in src/app compose features)
//   src/lib, src/components, src/utils, src/api — shared; never import a feature or the app
import { readdirSync } from "node:fs";
import js from "@eslint/js";
import globals from "globals";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

const features = readdirSync(new URL("./src/features", import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);

const appImport = { group: ["@/app", "@/app/*"], message: "Only src/app composes pages; import downwards." };

const featureBoundaries = features.map((feature) => ({
  files: [`src/features/${feature}/**/*.{ts,tsx}`],
  rules: {
    "no-restricted-imports": ["error", {
      patterns: [
        appImport,
        {
          group: ["@/features/*", `!@/features/${feature}`, `!@/features/${feature}/**`],
          message: `A feature does not import another feature: compose them in src/app, or move what they share to src/lib or src/components.`,
        },
        { group: ["../../*"], message: `Import outside the feature through "@/…", not by climbing out of it.` },
      ],
    }],
  },
}));

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "src/api/schema.ts", "e2e/artifacts/**", "coverage/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: ["**/*.{ts,tsx}"] })),
  {
    files: ["**/*.{ts,tsx}"],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser },
    },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
    },
  },
  ...featureBoundaries,
  {
    files: ["src/lib/**/*.{ts,tsx}", "src/components/**/*.{ts,tsx}", "src/utils/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [appImport, { group: ["@/features/*"], message: "Shared code does not depend on a feature." }],
      }],
    },
  },
  {
    // Node scripts and the browser end-to-end tests: plain JavaScript, no type information.
    files: ["**/*.{js,mjs,cjs}"],
    languageOptions: { globals: { ...globals.node } },
  },
);
