// ESLint's recommended rules for the page's script, which runs in a page and as its worker, in
// every browser that has WebAssembly: ES2022, one plain script (no modules), and mdBook's
// `path_to_root` beside the browser's own names.
import js from "@eslint/js";
import globals from "globals";

export default [
    js.configs.recommended,
    {
        languageOptions: {
            ecmaVersion: 2022,
            sourceType: "script",
            globals: { ...globals.browser, ...globals.worker, path_to_root: "readonly" },
        },
    },
];
