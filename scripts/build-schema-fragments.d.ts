/** Types of scripts/build-schema-fragments.js for test/unit/config-schema-editor.test.ts. */
export declare const withFragments: (schema: Record<string, unknown>) => Record<string, unknown>;
export declare const render: (schema: Record<string, unknown>) => string;
