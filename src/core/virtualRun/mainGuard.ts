// Where the editor offers a dry run in a Python file: above each top-level
// `if __name__ == "__main__":`, the line that says "this file is a program".
const MAIN_GUARD = /^if\s+__name__\s*==\s*(['"])__main__\1\s*:/;

/** 0-based lines of the file's top-level main guards. */
export function mainGuardLines(text: string): number[] {
  return text.split(/\r?\n/).flatMap((line, index) => (MAIN_GUARD.test(line) ? [index] : []));
}
