// What the results panel's export buttons write: the core's JSON (the same as
// `device-doctor bench --json`), CSV and Markdown, with a file name and a save-dialog filter.
// The texts come only from src/core/bench/export.ts. No vscode import.
import { formatBenchJson, toCsv, toMarkdown } from '../../core/bench/export';
import type { BenchRun } from '../../core/bench/model';

export type ExportFormat = 'json' | 'csv' | 'markdown';

export interface ExportFile {
  text: string;
  /** "matmul-benchmark-2026-11-29-1705.csv" */
  fileName: string;
  /** For showSaveDialog's filters: {"CSV": ["csv"]}. */
  filters: Record<string, string[]>;
}

const FORMATS: Record<ExportFormat, { extension: string; filter: string; render(run: BenchRun): string }> = {
  json: { extension: 'json', filter: 'JSON', render: formatBenchJson },
  csv: { extension: 'csv', filter: 'CSV', render: toCsv },
  markdown: { extension: 'md', filter: 'Markdown', render: toMarkdown },
};

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && Object.hasOwn(FORMATS, value);
}

export function exportFile(run: BenchRun, format: ExportFormat, time: number): ExportFile {
  const spec = FORMATS[format];
  return { text: spec.render(run), fileName: `matmul-benchmark-${stamp(time)}.${spec.extension}`, filters: { [spec.filter]: [spec.extension] } };
}

/** The button of the confirmation that opens the exported file. */
export const OPEN_EXPORT = 'Open';

/** "Device Doctor: exported the benchmark to /home/me/matmul-benchmark-2026-11-29-1705.csv". */
export function exportedMessage(where: string): string {
  return `Device Doctor: exported the benchmark to ${where}`;
}

function stamp(time: number): string {
  const d = new Date(time);
  const two = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}-${two(d.getHours())}${two(d.getMinutes())}`;
}
