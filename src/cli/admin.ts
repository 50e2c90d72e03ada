import { parseArgs } from 'node:util';
import { isPlanId, PLAN_IDS } from '../accounts/plans.js';
import { type AdminClient, CliError } from './admin-client.js';

export const ADMIN_USAGE = `screening admin accounts create --name NAME --plan ${PLAN_IDS.join('|')}
screening admin accounts list
screening admin accounts show ID
screening admin accounts suspend|resume ID
screening admin accounts set-plan ID PLAN
screening admin accounts set-rate-limit ID (PER_MINUTE|default)
screening admin keys create --account ID [--name NAME]
screening admin keys list --account ID
screening admin keys revoke KEY_ID`;

function required(value: string | undefined, what: string): string {
  if (!value) throw new CliError(`Missing ${what}.\n${ADMIN_USAGE}`);
  return value;
}

function plan(value: string | undefined): string {
  const p = required(value, 'the plan');
  if (!isPlanId(p)) throw new CliError(`Unknown plan "${p}": use one of ${PLAN_IDS.join(', ')}.`);
  return p;
}

async function accounts(client: AdminClient, action: string | undefined, args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args,
    options: { name: { type: 'string' }, plan: { type: 'string' } },
    allowPositionals: true,
  });
  const id = positionals[0];
  const path = () => `/admin/v1/accounts/${encodeURIComponent(required(id, 'the account id'))}`;
  switch (action) {
    case 'create':
      return client.call('POST', '/admin/v1/accounts', {
        name: required(values.name, '--name'),
        plan: plan(values.plan),
      });
    case 'list':
      return client.call('GET', '/admin/v1/accounts');
    case 'show':
      return client.call('GET', path());
    case 'suspend':
      return client.call('PATCH', path(), { status: 'suspended' });
    case 'resume':
      return client.call('PATCH', path(), { status: 'active' });
    case 'set-plan':
      return client.call('PATCH', path(), { plan: plan(positionals[1]) });
    case 'set-rate-limit': {
      const limit = required(positionals[1], 'the limit per minute (or "default")');
      if (limit !== 'default' && !/^\d+$/.test(limit))
        throw new CliError('The limit must be a whole number or "default".');
      return client.call('PATCH', path(), {
        rate_limit_per_minute: limit === 'default' ? null : Number(limit),
      });
    }
    default:
      throw new CliError(`Unknown command "admin accounts ${action ?? ''}".\n${ADMIN_USAGE}`);
  }
}

async function keys(client: AdminClient, action: string | undefined, args: string[]): Promise<unknown> {
  const { values, positionals } = parseArgs({
    args,
    options: { account: { type: 'string' }, name: { type: 'string' } },
    allowPositionals: true,
  });
  const account = () => encodeURIComponent(required(values.account, '--account'));
  switch (action) {
    case 'create':
      return client.call(
        'POST',
        `/admin/v1/accounts/${account()}/keys`,
        values.name ? { name: values.name } : {},
      );
    case 'list':
      return client.call('GET', `/admin/v1/accounts/${account()}/keys`);
    case 'revoke': {
      const keyId = encodeURIComponent(required(positionals[0], 'the key id'));
      await client.call('DELETE', `/admin/v1/keys/${keyId}`);
      return { revoked: positionals[0] };
    }
    default:
      throw new CliError(`Unknown command "admin keys ${action ?? ''}".\n${ADMIN_USAGE}`);
  }
}

/** `screening admin <accounts|keys> <action> ...`: prints the operator API's JSON answer. */
export async function runAdmin(client: AdminClient, args: string[]): Promise<unknown> {
  const [resource, action, ...rest] = args;
  if (resource === 'accounts') return accounts(client, action, rest);
  if (resource === 'keys') return keys(client, action, rest);
  throw new CliError(`Unknown command "admin ${resource ?? ''}".\n${ADMIN_USAGE}`);
}
