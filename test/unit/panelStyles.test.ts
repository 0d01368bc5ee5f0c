// The panels' stylesheets (issue 28 item 10): no empty band under the title, one primary button
// in the device report, and theme colours where the browser's defaults glared in a dark theme.
import * as assert from 'assert';
import * as fs from 'fs';
import * as path from 'path';

const css = (name: string) => fs.readFileSync(path.join(__dirname, '..', '..', 'media', name), 'utf8');

/** The declarations of the first rule whose selector list is exactly `selector`. */
function rule(sheet: string, selector: string): string {
  const escaped = selector.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`(^|\\n)${escaped}\\s*\\{([^}]*)\\}`).exec(sheet);
  assert.ok(match, `no rule for ${selector}`);
  return match[2];
}

describe('panel styles (issue 28 item 10)', () => {
  for (const sheet of ['benchmark.css', 'deviceReport.css']) {
    it(`${sheet}: an empty notice under the title takes no room`, () => {
      assert.match(rule(css(sheet), '#notice:empty'), /min-height:\s*0;\s*margin:\s*0/);
    });
  }

  it('deviceReport.css: buttons are secondary, Detect Again alone is primary', () => {
    const sheet = css('deviceReport.css');
    assert.match(rule(sheet, 'button'), /background:\s*var\(--vscode-button-secondaryBackground\)/);
    assert.match(rule(sheet, 'button[data-action="detect"]'), /background:\s*var\(--vscode-button-background\)/);
    assert.doesNotMatch(sheet, /data-action="(showLog|selectDevice|chooseInterpreter|copyJson)"/);
  });

  it('deviceReport.css: the memory meter and the sparkline legend use theme colours', () => {
    const sheet = css('deviceReport.css');
    assert.match(rule(sheet, 'meter::-webkit-meter-bar'), /var\(--vscode-input-background\)/);
    assert.match(rule(sheet, '.spark-memory-key, .spark-utilization-key'), /color:\s*var\(--vscode-foreground\)/);
  });
});
