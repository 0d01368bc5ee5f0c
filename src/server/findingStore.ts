// The findings last published for each document (file or notebook cell), with the version
// they were computed on, so code actions reuse them and their edits name that version.
import type { LocatedFinding } from './locatedFinding';

export class FindingStore {
  private readonly findings = new Map<string, readonly LocatedFinding[]>();
  private readonly versions = new Map<string, number>();

  set(uri: string, findings: readonly LocatedFinding[], version: number | undefined): void {
    this.findings.set(uri, findings);
    if (version === undefined) this.versions.delete(uri);
    else this.versions.set(uri, version);
  }

  get(uri: string): readonly LocatedFinding[] {
    return this.findings.get(uri) ?? [];
  }

  version(uri: string): number | undefined {
    return this.versions.get(uri);
  }

  delete(uri: string): void {
    this.findings.delete(uri);
    this.versions.delete(uri);
  }
}
