/** Types of scripts/plan-schema-types.js for test/unit/kind-contract.test.ts. */
export declare const PLAN_SCHEMA: string;
export declare const resourceTypesOf: (addressText: string) => string[];
export declare const withResourceTypes: (planText: string, types: readonly string[]) => string;
export declare const planSchemaText: () => string;
