// Restricted Mode hides a workspace's value of deviceDoctor.pythonPath from the configuration
// API, so Choose Interpreter reads the workspace's own settings files to list that interpreter
// as "not probed: untrusted" (issue 28 item 11). These check what is read from them.
import { strict as assert } from 'assert';
import { pythonPathInSettingsFile } from '../../src/core/interpreters/workspaceSettingsFile';

describe('deviceDoctor.pythonPath read from a workspace\'s settings files', () => {
  it('reads it from .vscode/settings.json written with comments and a trailing comma, as VS Code allows', () => {
    const text = '{\n  // the project\'s venv\n  "deviceDoctor.pythonPath": " ${workspaceFolder}/.venv/bin/python ",\n  "editor.tabSize": 4,\n}\n';
    assert.equal(pythonPathInSettingsFile(text, 'folderSettings'), '${workspaceFolder}/.venv/bin/python');
  });

  it('reads it from a .code-workspace file\'s "settings" object, not from its top level', () => {
    const workspace = '{ "folders": [{ "path": "." }], "settings": { "deviceDoctor.pythonPath": "/opt/py/bin/python" } }';
    assert.equal(pythonPathInSettingsFile(workspace, 'workspaceFile'), '/opt/py/bin/python');
    assert.equal(pythonPathInSettingsFile('{ "deviceDoctor.pythonPath": "/top/level" }', 'workspaceFile'), undefined);
  });

  it('gives nothing for a missing, empty or non-string value, or a file that is not a JSON object', () => {
    for (const text of ['{}', '{ "deviceDoctor.pythonPath": "  " }', '{ "deviceDoctor.pythonPath": 3 }', '[]', 'not json', '']) {
      assert.equal(pythonPathInSettingsFile(text, 'folderSettings'), undefined, text);
    }
  });
});
