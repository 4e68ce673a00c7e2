// Types of scripts/architecture-measures.mjs, for test/infra/architecture.test.ts.
export interface MeasureItem {
  file?: string;
  line?: number;
  text: string;
  key?: string;
  edges?: string[];
  members?: string[];
  sites?: MeasureItem[];
}
export interface Measure {
  key: string;
  name: string;
  count: number;
  target: number | null;
  items: MeasureItem[];
  note?: string;
}
export interface Analysis {
  files: number;
  folderEdges: Map<string, Set<string>>;
  measures: Measure[];
}
export const MAX_LINES: number;
export const TABLE_OWNERS: Record<string, string>;
export function ownerOf(table: string): string | undefined;
export function analyseSources(root?: string): Analysis;
export function offenderCounts(result: Analysis, key: string): Record<string, number>;
export function cycles(edges: Map<string, Set<string>>): string[][];
