// Types of scripts/rust-features.mjs for the TypeScript that imports it (the tests).

/** A shared dependency whose features differ between the addon's build and the tests'. */
export interface FeatureDifference {
  readonly name: string;
  readonly addon: string;
  readonly tests: string;
}

export function parseFeatureTree(text: string): Map<string, string>;
export function featureDifferences(
  addon: Map<string, string>,
  tests: Map<string, string>,
  workspaceRoot: string,
): FeatureDifference[];
export function currentDifferences(): FeatureDifference[];
