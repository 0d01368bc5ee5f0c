// `device-doctor doctor`: the device report as lines a person reads.
import type { DeviceReport } from './report';

export function summarizeReport(report: DeviceReport): string[] {
  return [`Selected device: ${report.selected.device} (${report.selected.reason})`];
}
