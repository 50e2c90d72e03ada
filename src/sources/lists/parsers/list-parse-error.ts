/** Where in a list file a problem was found; every field the reader knows is filled. */
export interface ListParsePosition {
  line?: number;
  column?: number;
  /** 1-based number of the record (CSV row after the header, XML record element). */
  record?: number;
  /** Byte offset in the (decompressed) file. */
  byte?: number;
}

/**
 * A list file that cannot be turned into entities. The refresh that hit it keeps the previous
 * snapshot in service, so the message must let an operator find the problem without the file:
 * it names the list, the file and the position.
 */
export class ListParseError extends Error {
  override readonly name = 'ListParseError';

  constructor(
    readonly list: string,
    readonly file: string,
    readonly position: ListParsePosition,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${list}: ${file}${describePosition(position)}: ${reason}`, options);
  }
}

function describePosition(position: ListParsePosition): string {
  const parts: string[] = [];
  if (position.line !== undefined) parts.push(`line ${position.line}`);
  if (position.column !== undefined) parts.push(`column ${position.column}`);
  if (position.record !== undefined) parts.push(`record ${position.record}`);
  if (position.byte !== undefined) parts.push(`byte ${position.byte}`);
  return parts.length > 0 ? ` (${parts.join(', ')})` : '';
}

/** Names the list file being read, so helpers can raise errors without threading three values. */
export interface FileContext {
  list: string;
  file: string;
}

export function parseError(ctx: FileContext, position: ListParsePosition, reason: string, cause?: unknown) {
  return new ListParseError(
    ctx.list,
    ctx.file,
    position,
    reason,
    cause === undefined ? undefined : { cause },
  );
}
