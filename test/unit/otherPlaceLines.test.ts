// The one decision behind "line 5 of train.py" (the analyzer) and "cell 3, line 5" (the
// editor's notebooks): which line numbers of a message belong to another place.
import { strict as assert } from 'assert';
import { nameOtherPlacesLines } from '../../src/core/analysis';

const ofFile = (text: string, line: number, name: string) => text.replace(new RegExp(`\\bline ${line}\\b`, 'g'), `line ${line} of ${name}`);

describe('nameOtherPlacesLines: which lines of a message are said as another place\'s', () => {
  it('rewords a line that only another place has, in the caller\'s words', () => {
    assert.equal(nameOtherPlacesLines('moved on line 5, used on line 9', [9], [{ line: 5, place: 'train.py' }], ofFile), 'moved on line 5 of train.py, used on line 9');
  });

  it('leaves a line that is also the finding\'s own, or that two different places share, as it is', () => {
    const others = [{ line: 9, place: 'train.py' }, { line: 7, place: 'a.py' }, { line: 7, place: 'b.py' }, { line: 3, place: 'a.py' }, { line: 3, place: 'a.py' }];
    assert.equal(nameOtherPlacesLines('line 9, line 7 and line 3', [9], others, ofFile), 'line 9, line 7 and line 3 of a.py');
  });
});
