// Joins the parsed probes into the device report of PROBES.md.
import type { Accelerator, DeviceReport, HostInfo, Problem, SelectedDevice, TorchStatus } from './report';

export interface ReportParts {
  host: HostInfo;
  accelerators: Accelerator[];
  torch: TorchStatus | null;
  selected: SelectedDevice;
  problems: Problem[];
}

/** Exactly PROBES.md's shape, keys in its order, accelerators and problems in a stable order. */
export function assembleReport(parts: ReportParts): DeviceReport {
  return {
    schemaVersion: 1,
    host: parts.host,
    accelerators: parts.accelerators,
    torch: parts.torch,
    selected: parts.selected,
    problems: parts.problems,
  };
}
