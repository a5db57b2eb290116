// ESLint (flat config): typescript-eslint's recommended rules over the whole project, plus the
// few rules this code base leans on. Formatting is Prettier's job (`npm run format`); the
// import layering is dependency-cruiser's (.dependency-cruiser.cjs).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'api-docs/**',
      'bench/.build/**',
      'bench/results/**',
      'node_modules/**',
      '.cache/**',
      'test/.artifacts/**',
      'src/grpc/gen/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { process: 'readonly', Buffer: 'readonly', console: 'readonly' } },
    rules: {
      // Unused names are dead code; a leading underscore marks one kept on purpose.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // `any` is for tests that read arbitrary JSON; public APIs never use it (checked in src/).
      '@typescript-eslint/no-explicit-any': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
      eqeqeq: ['error', 'always'],
      'prefer-const': 'error',
    },
  },
  {
    // The debug page's browser script: one scope made of several files, so names defined in one
    // and used in another are neither undefined nor unused; tsc checks them with the DOM types
    // (src/debug/page/browser/tsconfig.json).
    files: ['src/debug/page/browser/*.js'],
    languageOptions: { sourceType: 'script' },
    rules: {
      'no-undef': 'off',
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': 'off',
      'no-var': 'off',
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } },
  },
  {
    files: ['src/**/*.ts', 'machines/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
  {
    // Typed rules: a promise nobody awaits or catches loses its rejection, and a promise handed
    // where a plain callback is expected (an event handler, a condition) is never awaited.
    files: ['**/*.ts'],
    ignores: ['src/debug/page/browser/**'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
);
