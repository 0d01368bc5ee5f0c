// The JSON object printed by src/worker/torch/probe.py: TorchStatus without the
// interpreter field, or {"error": "..."} when torch cannot be imported.
import type { TorchStatus } from './report';

export function parseTorchProbe(stdout: string, interpreter: string): TorchStatus {
  void stdout;
  return { interpreter, error: 'not implemented' };
}
