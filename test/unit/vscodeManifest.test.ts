// package.json agrees with the code: the command table, the settings the code reads (with
// descriptions, scopes and the same defaults), activation, trust, and the webview's assets.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';
import { COMMANDS } from '../../src/vscode/shared/commandIds';
import { detectTimeoutMs, DEVICE_SETTING_DEFAULTS, probeTimeoutOption, readDeviceSettings, REDETECT_SETTINGS } from '../../src/vscode/devices/deviceSettings';
import { DEFAULT_TIMEOUTS_MS } from '../../src/protocol/probeTimeouts';

const ROOT = path.resolve(__dirname, '..', '..');

interface SettingSchema {
  type: string;
  default: unknown;
  scope?: string;
  description?: string;
  markdownDescription?: string;
  minimum?: number;
  maximum?: number;
}

const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  activationEvents: string[];
  capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
  contributes: { commands: Array<{ command: string; title: string; category: string }>; configuration: { properties: Record<string, SettingSchema> } };
};
const properties = manifest.contributes.configuration.properties;

describe('vscode: the manifest', () => {
  it('contributes exactly the commands of the COMMANDS table, each with a title and the "Device Doctor" category', () => {
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    assert.deepStrictEqual(contributed, Object.values(COMMANDS).sort());
    for (const command of manifest.contributes.commands) {
      assert.strictEqual(command.category, 'Device Doctor', command.command);
      assert.ok(command.title.length > 0);
    }
    const titles = Object.fromEntries(manifest.contributes.commands.map((c) => [c.command, c.title]));
    assert.strictEqual(titles[COMMANDS.detect], 'Detect Accelerators');
    assert.strictEqual(titles[COMMANDS.selectDevice], 'Select Device');
    assert.strictEqual(titles[COMMANDS.showLog], 'Show Log');
    assert.strictEqual(titles[COMMANDS.restartWorker], 'Restart Worker');
  });

  it('declares every setting with a type, a description and a scope', () => {
    for (const [key, schema] of Object.entries(properties)) {
      assert.ok(schema.type, `${key}: type`);
      assert.ok(schema.description || schema.markdownDescription, `${key}: description`);
      assert.ok(schema.scope, `${key}: scope`);
    }
  });

  it('declares the device settings the code reads, with the same defaults and bounds', () => {
    const keys: Record<keyof typeof DEVICE_SETTING_DEFAULTS, string> = {
      statusBarEnabled: 'deviceDoctor.statusBar.enabled',
      memoryWarningPercent: 'deviceDoctor.statusBar.memoryWarningPercent',
      monitorIntervalMs: 'deviceDoctor.monitor.intervalMs',
      probeTimeoutMs: 'deviceDoctor.probeTimeoutMs',
      pinnedDevice: 'deviceDoctor.device',
    };
    const manifestDefaults = readDeviceSettings({
      get: <T>(key: string) => properties[`deviceDoctor.${key}`]?.default as T | undefined,
    });
    assert.deepStrictEqual(manifestDefaults, DEVICE_SETTING_DEFAULTS);
    for (const key of Object.values(keys)) assert.ok(properties[key], key);
    for (const key of REDETECT_SETTINGS) assert.ok(properties[key], key);
    assert.strictEqual(properties['deviceDoctor.statusBar.memoryWarningPercent']!.maximum, 100);
  });

  it('clamps settings to the manifest bounds and ignores a malformed device', () => {
    const read = (values: Record<string, unknown>) => readDeviceSettings({ get: <T>(key: string) => values[key] as T | undefined });
    assert.strictEqual(read({ 'monitor.intervalMs': 10 }).monitorIntervalMs, properties['deviceDoctor.monitor.intervalMs']!.minimum);
    assert.strictEqual(read({ 'statusBar.memoryWarningPercent': 250 }).memoryWarningPercent, 100);
    assert.strictEqual(read({ 'probeTimeoutMs': 'soon' }).probeTimeoutMs, DEVICE_SETTING_DEFAULTS.probeTimeoutMs);
    assert.strictEqual(read({ 'probeTimeoutMs': 10 }).probeTimeoutMs, properties['deviceDoctor.probeTimeoutMs']!.minimum);
    assert.strictEqual(read({ device: 'cuda:1' }).pinnedDevice, 'cuda:1');
    assert.strictEqual(read({ device: 'gpu please' }).pinnedDevice, null);
  });

  it('leaves each probe its own timeout until probeTimeoutMs is set, and waits for a detection as long as its probes may take', () => {
    const read = (values: Record<string, unknown>) => readDeviceSettings({ get: <T>(key: string) => values[key] as T | undefined });
    const unset = read({});
    assert.deepStrictEqual(probeTimeoutOption(unset), {}, 'the worker keeps its per-kind limits');
    assert.ok(detectTimeoutMs(unset) > DEFAULT_TIMEOUTS_MS.torch + DEFAULT_TIMEOUTS_MS['nvidia-smi'], `a detection outlasts a slow import of torch: ${detectTimeoutMs(unset)} ms`);
    const set = read({ probeTimeoutMs: 5000 });
    assert.deepStrictEqual(probeTimeoutOption(set), { timeoutMs: 5000 });
    assert.strictEqual(detectTimeoutMs(set), 20_000);
  });

  it('keeps the interpreter setting restricted in untrusted workspaces, machine-specific but overridable', () => {
    assert.strictEqual(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes('deviceDoctor.pythonPath'));
    assert.strictEqual(properties['deviceDoctor.pythonPath']!.scope, 'machine-overridable');
  });

  it('activates for Python work only: Python files, notebooks, a workspace containing them, or one of its panels restored after a reload', () => {
    assert.deepStrictEqual(manifest.activationEvents, [
      'onLanguage:python', 'onNotebook:jupyter-notebook', 'workspaceContains:**/*.py', 'workspaceContains:**/*.ipynb',
      'onWebviewPanel:deviceDoctor.deviceReport', 'onWebviewPanel:deviceDoctor.benchmark',
    ]);
  });

  it('ships the device report view\'s script and stylesheet in media/', () => {
    for (const asset of ['media/deviceReport.js', 'media/deviceReport.css']) assert.ok(fs.existsSync(path.join(ROOT, asset)), asset);
    const script = fs.readFileSync(path.join(ROOT, 'media/deviceReport.js'), 'utf8');
    assert.ok(!/\bfetch\(|XMLHttpRequest|WebSocket|\beval\(/.test(script), 'the webview script makes no requests and evaluates nothing');
  });
});
