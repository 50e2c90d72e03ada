import type { AlertReason, AlertView } from '../screening/monitoring/alert-store.js';
import { registeredList } from '../sources/lists/list-registry.js';

/** Why an alert was raised, in words (the API's `reason` is a code). */
const REASONS: Record<AlertReason, string> = {
  new_match: 'New match',
  record_changed: 'Record changed',
  record_removed: 'Record removed from the list',
};

/** Characters of a list version shown. */
const LIST_VERSION_SHOWN_CHARS = 12;

/** What the inbox shows: `all`, or one status of the API's. */
export type AlertStatusFilter = 'open' | 'closed' | 'all';
export const ALERT_STATUS_FILTERS: readonly AlertStatusFilter[] = ['open', 'closed', 'all'];

/** The inbox's filter as asked for; anything else is the default, open alerts. */
export function alertStatusFilter(value: string | undefined): AlertStatusFilter {
  return ALERT_STATUS_FILTERS.includes(value as AlertStatusFilter) ? (value as AlertStatusFilter) : 'open';
}

/** One alert of the inbox: its subject (the monitor's name, when known) and the record it is about. */
export function alertRowView(alert: AlertView, subject: string | undefined) {
  // An alert is about one record; an alert without one (never raised so) still shows its list.
  const flag = alert.flags[0];
  const details = flag?.details ?? {};
  return {
    id: alert.id,
    monitorId: alert.monitor_id,
    subject: subject ?? '',
    reference: alert.reference,
    reason: REASONS[alert.reason] ?? alert.reason,
    removed: alert.reason === 'record_removed',
    list: registeredList(alert.list)?.title ?? alert.list,
    listId: alert.list,
    // A version is a content hash: its first 12 characters name it, as the operator API's messages do.
    listVersion: alert.list_version.slice(0, LIST_VERSION_SHOWN_CHARS),
    recordName: String(details.name ?? details.matched_name ?? ''),
    score: flag ? flag.match_score.toFixed(2) : '',
    screeningId: alert.screening_id,
    createdAt: alert.created_at,
    open: alert.status === 'open',
    note: alert.note,
    closedAt: alert.closed_at,
  };
}
