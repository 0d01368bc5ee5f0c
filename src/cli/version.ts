// The version printed by --version, doctor and SARIF output: package.json's, bundled in.
import { version } from '../../package.json';

export const DEVICE_DOCTOR_VERSION: string = version;
