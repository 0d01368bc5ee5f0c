// The monitor sees tool indexes (nvidia-smi's PCI order, sysfs card numbers); the
// status bar wants the report's ids ("cuda:1"). The last detect links the two through
// each GPU's UUID or PCI bus id.
import { parseNvidiaQueryCsv } from '../../core/devices/nvidiaSmi';
import type { Accelerator } from '../../core/devices/report';
import { succeeded } from '../../core/devices/toolRun';
import type { DetectOutcome } from './detect';
import { FALLBACK_IDS, type IdMapper } from '../monitor/monitor';

/** PCI bus ids differ in spelling between tools (00000000:19:00.0 vs 0000:19:00.0, case). */
function normalizeBusId(id: string | null | undefined): string | null {
  if (!id) return null;
  const match = /^(?:([0-9a-f]+):)?([0-9a-f]{2}):([0-9a-f]{2})\.([0-9a-f])$/i.exec(id.trim());
  if (!match) return id.trim().toLowerCase();
  return `${match[2]}:${match[3]}.${match[4]}`.toLowerCase();
}

function findAccelerator(accelerators: Accelerator[], uuid: string | null, pciBusId: string | null): Accelerator | undefined {
  const bus = normalizeBusId(pciBusId);
  return (
    (uuid ? accelerators.find((a) => a.uuid === uuid) : undefined) ??
    (bus ? accelerators.find((a) => normalizeBusId(a.pciBusId) === bus) : undefined)
  );
}

export function idMapperFor(outcome: DetectOutcome): IdMapper {
  const accelerators = outcome.report.accelerators;
  const nvidiaIds = new Map<number, string>();
  const query = outcome.runs.nvidia?.query;
  if (query && succeeded(query)) {
    for (const row of parseNvidiaQueryCsv(query.stdout)) {
      const found = findAccelerator(accelerators.filter((a) => a.vendor === 'nvidia'), row.uuid, row.pciBusId);
      if (found) nvidiaIds.set(row.index, found.id);
    }
  }
  const amd = accelerators.filter((a) => a.vendor === 'amd');
  return {
    nvidia: (index) => nvidiaIds.get(index) ?? FALLBACK_IDS.nvidia(index),
    amd: (pciBusId, index) => findAccelerator(amd, null, pciBusId)?.id ?? FALLBACK_IDS.amd(pciBusId, index),
  };
}
