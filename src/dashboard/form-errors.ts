import { ServiceError } from '../errors.js';
import { PROBLEMS } from '../http/problems.js';

/** A refusal of a service shown on a form: its status, the message, and the message per field. */
export interface FormRefusal {
  status: number;
  error: string;
  fields: Record<string, string>;
}

/**
 * Turns a ServiceError a form can explain (validation, plan, limit, quota, a dependency down) into
 * what the form shows; anything else is not the visitor's to fix and is rethrown (the error page).
 * `fieldOf` maps a problem's JSON pointer to the form field it is about.
 */
export function formRefusal(
  error: unknown,
  fieldOf: (pointer: string) => { field: string; label: string } | undefined,
): FormRefusal {
  if (!(error instanceof ServiceError) || error.code === 'internal' || error.code === 'not-found')
    throw error;
  const fields: Record<string, string> = {};
  for (const fieldError of error.fieldErrors) {
    const target = fieldOf(fieldError.pointer);
    if (target && !fields[target.field]) fields[target.field] = sentence(target.label, fieldError.detail);
  }
  return { status: PROBLEMS[error.code].status, error: error.detail, fields };
}

/** API details are often phrased `must be ...`: on a form they become a sentence about the field. */
function sentence(label: string, detail: string): string {
  const text = /^(must|is|are|resolves|contains|has) /.test(detail)
    ? `${label} ${detail}`
    : detail.charAt(0).toUpperCase() + detail.slice(1);
  return /[.!?)]$/.test(text) ? text : `${text}.`;
}
