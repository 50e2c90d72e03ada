import { type FileContext, parseError } from './list-parse-error.js';

/**
 * Above this share of lines that are not entities, the file is refused instead of served with
 * holes: a few bad lines are a publisher's glitch, many mean a damaged or different file.
 */
export const FTM_MAX_MALFORMED_LINE_SHARE = 0.01;
const MALFORMED_LINES_QUOTED = 5;

/**
 * The lines of an FtM export that are not entities, as a reader counts them: the first such line
 * refuses the file at once (it is another file altogether: a JSON document, a CSV, an error
 * page), and too many of them refuse it at the end. Either way the version in service stays.
 */
export class FtmDamage {
  readonly malformedLines: number[] = [];

  constructor(private readonly ctx: FileContext) {}

  /** Line `line`, the `ordinal`th read, is not an entity. */
  notAnEntity(line: number, ordinal: number): void {
    if (ordinal === 1) {
      throw parseError(
        this.ctx,
        { line, record: 1 },
        'not a FollowTheMoney entity (expected one JSON object with id, schema and properties per line)',
      );
    }
    this.malformedLines.push(line);
  }

  /** Refuses the file when more than the tolerated share of its `lines` were not entities. */
  checkShare(lines: number): void {
    const malformed = this.malformedLines.length;
    if (malformed > lines * FTM_MAX_MALFORMED_LINE_SHARE) {
      throw parseError(
        this.ctx,
        { line: this.malformedLines[0] },
        `${malformed} of ${lines} lines are not FollowTheMoney entities (damaged or not an FtM export)`,
      );
    }
  }

  /** The refresh log's warning about the lines skipped, if any. */
  warning(prefix: string): string | undefined {
    const malformed = this.malformedLines;
    if (malformed.length === 0) return undefined;
    const quoted = malformed.slice(0, MALFORMED_LINES_QUOTED).join(', ');
    return `${prefix}lines that are not FtM entities, skipped: ${malformed.length} (lines ${quoted})`;
  }
}
