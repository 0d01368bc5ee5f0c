// One device run's readings as table cells, shared by the terminal table (cli/formats/
// everyDeviceText.ts) and the panel (vscode/benchmark/panel/peerSection.ts), so both print the
// same clock, temperature and power for the same run. "-" where nothing was seen.
import { significant } from '../numberText';
import { conditionsOf, type DeviceRun } from './everyDevice';

/** "1.41/1.98 GHz" (median of the run / the maximum), "1.41 GHz" without a maximum. */
export function clockCell(run: DeviceRun): string {
  const during = conditionsOf(run);
  if (during?.smClockMHz == null) return '-';
  const ghz = (mhz: number) => significant(mhz / 1000, 3);
  return `${ghz(during.smClockMHz)}${during.maxSmClockMHz != null ? `/${ghz(during.maxSmClockMHz)}` : ''} GHz`;
}

export function temperatureCell(run: DeviceRun): string {
  const t = conditionsOf(run)?.temperatureC;
  return t == null ? '-' : `${Math.round(t)}°C`;
}

export function powerCell(run: DeviceRun): string {
  const w = conditionsOf(run)?.powerW;
  return w == null ? '-' : `${significant(w, 3)} W`;
}
