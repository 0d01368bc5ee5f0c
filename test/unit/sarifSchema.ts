// The official SARIF 2.1.0 JSON schema (draft 2020-12), as Microsoft's SARIF SDK ships it in
// its multitool package, compiled once with Ajv; the formats (uri, date-time, …) checked too.
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import * as fs from 'fs';
import * as path from 'path';

/** @microsoft/sarif-multitool installs the package of this platform only, each with the same schema. */
export function sarifSchemaPath(): string {
  const platformPackage = `@microsoft/sarif-multitool-${process.platform}`;
  return path.join(path.dirname(require.resolve(`${platformPackage}/package.json`)), 'sarif-2.1.0.json');
}

let compiled: ValidateFunction | undefined;

/** Validates `log` against the schema; returns Ajv's errors as lines, empty when valid. */
export function sarifSchemaErrors(log: unknown): string[] {
  if (!compiled) {
    // strict: false, because the schema uses annotation keywords Ajv does not know; they validate nothing.
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    compiled = ajv.compile(JSON.parse(fs.readFileSync(sarifSchemaPath(), 'utf8')) as object);
  }
  if (compiled(log)) return [];
  return (compiled.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}
